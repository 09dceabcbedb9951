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
// It measures both clients: the own one (far under grpc-go direct) and grpc-go's.
func TestAllocsPerCall(t *testing.T) {
	for _, client := range []string{grpcx.ClientAuto, grpcx.ClientGRPCGo} {
		t.Run(client, func(t *testing.T) { allocsPerCall(t, client) })
	}
}

func allocsPerCall(t *testing.T, client string) {
	es := newEchoServer(t)
	tr := newTransport(t, grpcx.Options{Client: client, Resolver: echoResolver(t), MaxBodies: 1})
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

// rawOut is the echo.Out {id: "raw"} behind its 5-byte prefix: field 1, 3 bytes.
var rawOut = []byte{0, 0, 0, 0, 5, 0x0a, 3, 'r', 'a', 'w'}

// startOwn returns a transport on the own client and a call of echo.Echo to a raw server that
// allocates nothing, after one call that opened the connection, resolved the method and kept the
// body.
func startOwn(tb testing.TB, o grpcx.Options) (*grpcx.Transport, *transport.Request) {
	addr := grpcx.StartRawGRPC(tb, grpcx.AnswerWith(rawOut))
	o.Resolver = echoResolver(tb)
	tr := newTransport(tb, o)
	r := request("grpc", addr, "/echo.Echo/Echo", `{"id":"static"}`)
	r.Header = []transport.Header{{Name: "x-name", Value: "v"}}
	if out := do(tb, tr, r); out.Class != result.OK || out.BytesIn != int64(len(rawOut)) {
		tb.Fatalf("first call: got class %v (%v), %d bytes in; want ok, %d", out.Class, out.Err, out.BytesIn, len(rawOut))
	}
	return tr, r
}

// TestOwnClientAllocs: in steady state a unary call on the own client, with a static body and
// metadata, allocates nothing (the raw server neither: the count is the client's).
func TestOwnClientAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr, r := startOwn(t, grpcx.Options{})
	var out transport.Outcome
	allocs := testing.AllocsPerRun(200, func() {
		out.Reset()
		tr.Do(ctx, r, &out)
	})
	if out.Class != result.OK || allocs != 0 {
		t.Errorf("a call on the own client: got class %v (%v), %v allocations; want ok, 0", out.Class, out.Err, allocs)
	}
}

// BenchmarkOwnClient: calls one after another on one connection of the own client, to a raw
// server that allocates nothing: the client's own cost.
//
//	go test -run '^$' -bench OwnClient -benchmem ./transport/grpcx/
func BenchmarkOwnClient(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr, r := startOwn(b, grpcx.Options{})
	var out transport.Outcome
	b.ReportAllocs()
	for b.Loop() {
		out.Reset()
		tr.Do(ctx, r, &out)
		if out.Class != result.OK {
			b.Fatalf("got class %v (%v); want ok", out.Class, out.Err)
		}
	}
}
