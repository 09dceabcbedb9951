package ws

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// An upgrade answered with garbage is a protocol failure; one answered with another status than
// 101 is a status failure. Neither is "other".
func TestUpgradeFailureClass(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, answer string
		want         result.Class
	}{
		{"not HTTP", "SSH-2.0-OpenSSH_9.6\r\n\x00\xff garbage\r\n\r\n", result.Protocol},
		{"not found", "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", result.Status},
		{"plain 200", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", result.Status},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			defer wg.Wait()
			defer ln.Close()
			wg.Go(func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					wg.Go(func() {
						defer c.Close()
						r := bufio.NewReader(c)
						for {
							line, err := r.ReadString('\n')
							if err != nil {
								return
							}
							if line == "\r\n" {
								break
							}
						}
						_, _ = io.WriteString(c, tt.answer)
					})
				}
			})
			tr := New(Options{Conns: 1, Timeout: 5 * time.Second})
			defer tr.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var out transport.Outcome
			tr.Do(ctx, request("ws://"+ln.Addr().String()+"/", `{"jsonrpc":"2.0","id":1,"method":"x"}`), &out)
			if out.Class != tt.want {
				t.Errorf("got class %v (%v); want %v", out.Class, out.Err, tt.want)
			}
		})
	}
}

// A call written on a connection that its reader closed meanwhile (the server reset it) is cut by
// a reset, not "other".
func TestClassifyClosedUnderCall(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("failed to write msg: failed to write frame: %w", net.ErrClosed)
	if got := classify(context.Background(), err); got != result.Reset {
		t.Errorf("classify(%v) = %v; want reset", err, got)
	}
}
