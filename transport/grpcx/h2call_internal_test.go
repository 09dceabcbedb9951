package grpcx

import (
	"context"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"google.golang.org/grpc/codes"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// A stream the server reset with CANCEL is a Canceled status, unless the call's deadline had
// passed when the reset came: then it is the server's deadline (grpc-timeout, the same Timeout,
// counted from the request's arrival) that fired, and the call a timeout, DeadlineExceeded, as
// grpc-go tells it. Whichever side's timer fires first depends on the machine's load; the reset is
// taken here from a real connection and judged as if it had come before and after the deadline.
func TestResetAfterDeadlineIsATimeout(t *testing.T) {
	t.Parallel()
	addr := StartRawGRPC(t, func(fr *http2.Framer, _ func(...string) []byte, id uint32) error {
		return fr.WriteRSTStream(id, http2.ErrCodeCancel)
	})
	const timeout = time.Minute
	tr := New(Options{Timeout: timeout})
	defer tr.Close()
	k := targetKey{"grpc", addr}
	var s slot
	ht, err := s.newH2(tr, k)
	if err != nil {
		t.Fatal(err)
	}
	defer ht.Close()
	c := &h2call{req: transport.Request{Method: "POST", Scheme: "http", Host: addr, Path: []byte("/f.S/Get"), Body: []byte{0, 0, 0, 0, 0},
		Header: tr.fixed}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var reset transport.Outcome
	ht.DoGRPC(ctx, &c.req, &reset, &c.ans)
	if reset.Sent.IsZero() || reset.Err == nil {
		t.Fatalf("the call: sent %v, err %v; want sent, reset", reset.Sent, reset.Err)
	}
	for _, tc := range []struct {
		name  string
		sent  time.Time
		class result.Class
		code  codes.Code
	}{
		{"within the deadline", reset.Sent, result.Status, codes.Canceled},
		{"past the deadline", reset.Sent.Add(-timeout), result.Timeout, codes.DeadlineExceeded},
	} {
		out := reset
		out.Sent = tc.sent
		tr.finishH2(ctx, &s, k, nil, c, &out)
		if out.Class != tc.class || out.Status != int(tc.code) || out.Answered != (tc.class == result.Status) {
			t.Errorf("%s: got class %v status %d answered %v (%v); want %v, %d (%v)", tc.name, out.Class, out.Status, out.Answered, out.Err, tc.class, tc.code, tc.code)
		}
	}
}

// grpc-timeout is the Timeout in the smallest unit (n, u, m, S, M, H) whose count holds in 8
// digits, rounded up, as gRPC's specification and grpc-go encode it. The figures are worked by
// hand: 100ms is 1e8 ns, one digit too many; 100000001ns is 100000.001µs, rounded up; 30000h is
// 1.08e8 s; 2000000h is 1.2e8 minutes.
func TestGRPCTimeoutEncoding(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0n"},
		{1, "1n"},
		{900 * time.Microsecond, "900000n"},
		{1999 * time.Microsecond, "1999000n"},
		{99999999, "99999999n"},
		{100 * time.Millisecond, "100000u"},
		{100000001, "100001u"},
		{20 * time.Second, "20000000u"},
		{100 * time.Second, "100000m"},
		{time.Hour, "3600000m"},
		{100000*time.Second + 1, "100001S"},
		{1200 * time.Hour, "4320000S"},
		{30000 * time.Hour, "1800000M"},
		{2000000 * time.Hour, "2000000H"},
	} {
		if got := grpcTimeout(tc.d); got != tc.want {
			t.Errorf("%v: %q; want %q", tc.d, got, tc.want)
		}
	}
}
