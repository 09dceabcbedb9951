package summary

import (
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
)

// Requests that failed before a byte was written count as failed, not as sent: intended = ok +
// failed + never sent holds, and the back-offs show in the report.
func TestRequestsFailedBeforeSending(t *testing.T) {
	t.Parallel()
	iv := result.NewInterval(1)
	c := iv.Endpoints[0]
	// 10 sent (7 ok, 3 answered 503) and 4 refused before sending
	c.Sent, c.Completed, c.OK, c.Unsent = 10, 10, 7, 4
	c.Errors[result.Status], c.Errors[result.Refused] = 3, 4
	tests := []struct {
		name     string
		model    plan.Model
		intended uint64 // what the run says was due (open model)
		want     Requests
	}{
		{"closed", plan.Closed, 0, Requests{Intended: 14, Sent: 10, Completed: 10, OK: 7, Errors: 7, Unsent: 4}},
		{"open, 2 never sent", plan.Open, 16, Requests{Intended: 16, Sent: 10, Completed: 10, OK: 7, Errors: 7, Unsent: 4, Dropped: 2}},
		// the 4 refused were made on time: the generator kept up
		{"open, all made", plan.Open, 14, Requests{Intended: 14, Sent: 10, Completed: 10, OK: 7, Errors: 7, Unsent: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := plan.Plan{Endpoints: []plan.Endpoint{{Name: "a", URL: "http://127.0.0.1:1/"}}, Load: plan.Load{Model: tt.model, Rate: 16}}
			s := New(Run{Plan: p, Intended: tt.intended, Elapsed: time.Second, Sending: time.Second, Backoffs: 4, BackoffTime: 15 * time.Millisecond}, iv)
			if s.Requests != tt.want {
				t.Errorf("got requests %+v; want %+v", s.Requests, tt.want)
			}
			if r := s.Requests; r.Intended != r.OK+r.Errors+r.Dropped {
				t.Errorf("intended %d != ok %d + failed %d + never sent %d", r.Intended, r.OK, r.Errors, r.Dropped)
			}
			if got := s.Endpoints[0].Requests; got.Intended != 14 || got.Unsent != 4 || got.Errors != 7 {
				t.Errorf("got endpoint requests %+v; want intended 14, unsent 4, errors 7", got)
			}
			behind := strings.Contains(strings.Join(s.Notes, "\n"), "fell behind")
			if want := tt.want.Dropped > 0; behind != want {
				t.Errorf("got notes %q; want a note that the generator fell behind: %v", s.Notes, want)
			}
			if s.Backoff == nil || s.Backoff.Count != 4 || s.Backoff.TotalS != 0.015 {
				t.Errorf("got back-off %+v; want 4 waits, 0.015 s", s.Backoff)
			}
		})
	}
}
