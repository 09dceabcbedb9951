package cli

import (
	"bufio"
	"net"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rpcbench/rpcbench/result"
)

// resetServer answers GETs on 127.0.0.1 with 200 "ok" over keep-alive connections, except every
// fifth request it reads, which it resets (RST) instead of answering.
type resetServer struct {
	ln     net.Listener
	wg     sync.WaitGroup
	seen   atomic.Int64
	resets atomic.Int64
}

func startResetServer(t *testing.T) *resetServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &resetServer{ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				s.serve(c.(*net.TCPConn))
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

func (s *resetServer) serve(c *net.TCPConn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		for { // the request's head; a GET has no body
			line, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			if len(line) <= 2 {
				break
			}
		}
		if s.seen.Add(1)%5 == 0 {
			s.resets.Add(1)
			c.SetLinger(0) // close with a reset
			return
		}
		if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")); err != nil {
			return
		}
	}
}

// TestRunCountsResets runs 60 GETs over one connection against a server that resets every fifth
// request it reads. A reset on a reused connection is sent again on a new one; the report must
// still account for every reset: as a failure of class reset, or as a retry after a reset.
func TestRunCountsResets(t *testing.T) {
	t.Parallel()
	srv := startResetServer(t)
	rb := filepath.Join(t.TempDir(), "resets.rb")
	code, s, stderr := rpcRun(t, "run", "--requests", "60", "--connections", "1", "--out", rb, "http://"+srv.ln.Addr().String()+"/")
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	resets := uint64(srv.resets.Load())
	if resets < 10 {
		t.Fatalf("got %d resets from the server; want at least 10 (every fifth of 60 or more requests)", resets)
	}
	if got := s.Errors["reset"] + s.Requests.RetriedAfterReset; got != resets {
		t.Errorf("got %d reset failures + %d retried after reset = %d; want the server's %d resets", s.Errors["reset"], s.Requests.RetriedAfterReset, got, resets)
	}
	if s.Requests.RetriedAfterReset == 0 {
		t.Errorf("got no retry after a reset; want some (resets on reused connections)")
	}
	f, err := result.ReadFile(rb, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.Total.Total().Retried, s.Requests.RetriedAfterReset; got != want {
		t.Errorf("got %d retried in the result file; want the report's %d", got, want)
	}
	if got, want := uint64(srv.seen.Load()), s.Requests.Sent+s.Requests.RetriedAfterReset; got != want {
		t.Errorf("got %d requests at the server; want %d sent + retried", got, want)
	}
}
