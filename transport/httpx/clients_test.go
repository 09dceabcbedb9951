package httpx

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// BenchmarkClients sends the same loopback GET workload through this package's Transport,
// fasthttp.HostClient and net/http.Client, to choose the HTTP/1.1 client by measurement
// (docs/performance.md). The server runs in a child process (this test binary, see
// TestBenchServer) and writes a fixed 13-byte answer, so the figures are the client's alone: ns/op is
// wall time per request (all goroutines together), user-ns/op and sys-ns/op the CPU time the client
// process spent per request in user space and in the kernel (together they say how many requests
// per second a core can generate; they also hold up better than wall time on a busy machine),
// allocs/op its allocations.
//
//	go test -run '^$' -bench Clients -benchmem -count 5 ./transport/httpx/
//
// "serial" is one goroutine on one connection (latency per request); "parallel" is 16 goroutines
// (b.SetParallelism(8) on 2 CPUs), each with its own request on a shared client.
func BenchmarkClients(b *testing.B) {
	host := startServerProcess(b)
	const path = "/v0/entity?id=42"
	for _, shape := range []string{"serial", "parallel"} {
		for _, name := range []string{"httpx", "fasthttp", "nethttp"} {
			b.Run(shape+"/"+name, func(b *testing.B) {
				newSender := senderFactory(b, name, host, path)
				check := func(ok bool) {
					if !ok {
						b.Fatalf("%s: a request failed", name)
					}
				}
				check(newSender()()) // open a connection before timing
				b.ReportAllocs()
				user0, sys0 := cpuTime()
				b.ResetTimer()
				if shape == "serial" {
					send := newSender()
					for range b.N {
						check(send())
					}
				} else {
					b.SetParallelism(8)
					b.RunParallel(func(pb *testing.PB) {
						send := newSender()
						for pb.Next() {
							if !send() {
								b.Errorf("%s: a request failed", name)
								return
							}
						}
					})
				}
				b.StopTimer()
				user, sys := cpuTime()
				b.ReportMetric(float64(user-user0)/float64(b.N), "user-ns/op")
				b.ReportMetric(float64(sys-sys0)/float64(b.N), "sys-ns/op")
			})
		}
	}
}

// senderFactory returns a function that makes senders for the named client, all sharing one client
// (and its connections). Each sender owns its request and response and sends GET path to host.
func senderFactory(b *testing.B, name, host, path string) func() func() bool {
	switch name {
	case "httpx":
		tr := newTransport(b, Options{KeepBody: true})
		return func() func() bool {
			r := &transport.Request{Method: "GET", Scheme: "http", Host: host, Path: []byte(path),
				Header: []transport.Header{{Name: "Accept", Value: "*/*"}}}
			out := &transport.Outcome{}
			ctx := context.Background()
			return func() bool {
				out.Reset()
				tr.Do(ctx, r, out)
				return out.Class == result.OK && out.Status == 200 && len(out.Body) == 13
			}
		}
	case "fasthttp":
		hc := &fasthttp.HostClient{Addr: host, MaxConns: 1024, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
		b.Cleanup(hc.CloseIdleConnections)
		return func() func() bool {
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			req.SetRequestURI("http://" + host + path)
			req.Header.Set("Accept", "*/*")
			return func() bool {
				err := hc.Do(req, resp)
				return err == nil && resp.StatusCode() == 200 && len(resp.Body()) == 13
			}
		}
	default: // nethttp
		tr := &http.Transport{MaxIdleConnsPerHost: 1024, DisableCompression: true}
		b.Cleanup(tr.CloseIdleConnections)
		client := &http.Client{Transport: tr}
		return func() func() bool {
			req, err := http.NewRequest("GET", "http://"+host+path, nil)
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("Accept", "*/*")
			buf := make([]byte, 64)
			return func() bool {
				resp, err := client.Do(req)
				if err != nil {
					return false
				}
				n, _ := io.ReadFull(resp.Body, buf[:13])
				resp.Body.Close()
				return resp.StatusCode == 200 && n == 13
			}
		}
	}
}

// benchServerEnv makes TestBenchServer serve instead of skipping.
const benchServerEnv = "HTTPX_BENCH_SERVER"

// startServerProcess starts this test binary as BenchmarkClients' server and returns its address;
// the server stops when the benchmark ends (it reads its stdin until it is closed).
func startServerProcess(b *testing.B) string {
	cmd := exec.Command(os.Args[0], "-test.run=^TestBenchServer$")
	cmd.Env = append(os.Environ(), benchServerEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	host, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		b.Fatalf("server process: got %q, %v; want \"listening on ADDR\"", line, err)
	}
	return host
}

// TestBenchServer is BenchmarkClients' server when run as its child process; otherwise it skips. It
// answers every request with a fixed answer until its stdin is closed.
func TestBenchServer(t *testing.T) {
	if os.Getenv(benchServerEnv) != "1" {
		t.Skip("runs only as the server process of BenchmarkClients")
	}
	srv := startRaw(t, answerEach(okAnswer))
	fmt.Printf("listening on %s\n", srv.Host())
	io.Copy(io.Discard, os.Stdin)
}

// cpuTime returns the user and system CPU time the process has used, in nanoseconds.
func cpuTime() (user, sys int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return ru.Utime.Nano(), ru.Stime.Nano()
}
