package grpcx_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/serve/items/rpzpb"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/grpcx"
)

// maxOverhead bounds the allocations a call through the transport makes beyond the same call made
// straight with grpc-go (generated message types, the proto codec, a context with a deadline).
// AllocsPerRun counts the whole process, the in-process server's allocations included, so the
// transport's own part is the difference.
const maxOverhead = 6

// TestAllocsPerCall is not parallel: AllocsPerRun counts the allocations of the whole process.
func TestAllocsPerCall(t *testing.T) {
	es := newEchoServer(t)
	tr := newTransport(t, grpcx.Options{Resolver: echoResolver(t), MaxBodies: 1})
	static := request("grpc", es.addr, "/echo.Echo/Echo", `{"id":"static"}`)
	varying := request("grpc", es.addr, "/echo.Echo/Echo", `{"id":"varying"}`)
	var out transport.Outcome
	call := func(r *transport.Request) func() {
		return func() {
			out.Reset()
			tr.Do(context.Background(), r, &out)
			if out.Class != result.OK {
				t.Fatalf("call: %v %v", out.Class, out.Err)
			}
		}
	}
	call(static)() // opens the connection, resolves the method, keeps the static body

	cc, err := grpc.NewClient("passthrough:///"+es.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	in, res := &rpzpb.GetItemRequest{Id: "static"}, new(rpzpb.Item)
	direct := func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := cc.Invoke(ctx, "/echo.Echo/Echo", in, res); err != nil {
			t.Fatalf("direct call: %v", err)
		}
	}
	direct()

	base := testing.AllocsPerRun(200, direct)
	a := testing.AllocsPerRun(200, call(static))
	b := testing.AllocsPerRun(200, call(varying)) // MaxBodies 1: parsed from JSON every call
	static.Header = []transport.Header{{Name: "x-name", Value: "v"}}
	h := testing.AllocsPerRun(200, call(static))
	t.Logf("allocs per call, client and server: grpc-go direct %.0f; transport, static body %.0f (%+.0f); body parsed per call %.0f (%+.0f); static body and one metadata pair %.0f (%+.0f)",
		base, a, a-base, b, b-base, h, h-base)
	if a-base > maxOverhead {
		t.Errorf("allocs per call with a static body: got %.0f, %.0f more than grpc-go direct; want at most %d more", a, a-base, maxOverhead)
	}
	if b <= a {
		t.Errorf("a body parsed per call: got %.0f allocs, static %.0f; want more", b, a)
	}
}

func BenchmarkCall(b *testing.B) {
	for _, bc := range []struct {
		name  string
		conns int
		body  string
		max   int
	}{
		{"static/conns=1", 1, `{"id":"bench"}`, 0},
		{"static/conns=4", 4, `{"id":"bench"}`, 0},
		{"parsed/conns=1", 1, `{"id":"bench"}`, -1},
	} {
		b.Run(bc.name, func(b *testing.B) {
			es := newEchoServer(b)
			o := grpcx.Options{Resolver: echoResolver(b), Conns: bc.conns}
			r0 := request("grpc", es.addr, "/echo.Echo/Echo", bc.body)
			if bc.max < 0 { // keep another body, so that this one is parsed on every call
				o.MaxBodies = 1
				var out transport.Outcome
				tr := newTransport(b, o)
				tr.Do(context.Background(), request("grpc", es.addr, "/echo.Echo/Echo", `{}`), &out)
				benchCalls(b, tr, r0)
				return
			}
			benchCalls(b, newTransport(b, o), r0)
		})
	}
}

// BenchmarkDirect is the same call made straight with grpc-go, for comparison.
func BenchmarkDirect(b *testing.B) {
	es := newEchoServer(b)
	cc, err := grpc.NewClient("passthrough:///"+es.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	defer cc.Close()
	b.ReportAllocs()
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		in, res := &rpzpb.GetItemRequest{Id: "bench"}, new(rpzpb.Item)
		for pb.Next() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			err := cc.Invoke(ctx, "/echo.Echo/Echo", in, res)
			cancel()
			if err != nil {
				b.Errorf("call: %v", err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

func benchCalls(b *testing.B, tr transport.Transport, r0 *transport.Request) {
	b.ReportAllocs()
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		r := *r0
		var out transport.Outcome
		for pb.Next() {
			out.Reset()
			tr.Do(context.Background(), &r, &out)
			if out.Class != result.OK {
				b.Errorf("call: %v %v", out.Class, out.Err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}
