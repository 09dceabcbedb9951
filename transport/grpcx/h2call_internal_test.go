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
