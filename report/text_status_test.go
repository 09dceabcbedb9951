package report

import (
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

func textOf(t *testing.T, fill func(c *result.Counts)) string {
	t.Helper()
	iv := result.NewInterval(1)
	c := iv.Endpoints[0]
	for range 10 {
		result.RecordDuration(c.Latency, 3*time.Millisecond)
		result.RecordDuration(c.Service, 2*time.Millisecond)
	}
	c.Sent, c.Completed = 10, 10
	fill(c)
	p := plan.Plan{Endpoints: []plan.Endpoint{{URL: "http://127.0.0.1:1/"}}}.Normalized()
	s := summary.New(summary.Run{Plan: p, Trailer: result.Trailer{MeasuredStart: time.Unix(0, 0), Elapsed: time.Second, Sending: time.Second, Intended: 10}}, iv)
	var b strings.Builder
	if err := Text(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestTextNon2xxAndTTFB(t *testing.T) {
	t.Parallel()
	out := textOf(t, func(c *result.Counts) {
		c.OK = 6
		c.Status[200], c.Status[404], c.Status[500], c.Status[503] = 6, 2, 1, 1
		c.Errors[result.Status] = 4
		for range 10 {
			result.RecordDuration(c.TTFB, time.Millisecond)
		}
	})
	for _, want := range []string{
		"non-2xx/3xx 4 (40.0% of answers): 4xx 2, 5xx 2",
		"404  2 (20.0%)  (counted as failed)",
		"first byte",
		"(send to first byte)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "200  6 (60.0%)  (counted") {
		t.Errorf("200 marked as failed:\n%s", out)
	}
}

func TestTextAllOK(t *testing.T) {
	t.Parallel()
	out := textOf(t, func(c *result.Counts) {
		c.OK = 10
		c.Status[101] = 10 // WebSocket answers
	})
	for _, unwanted := range []string{"non-2xx", "first byte", "counted as failed"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("the report holds %q:\n%s", unwanted, out)
		}
	}
}
