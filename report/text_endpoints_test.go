package report

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// A run of more endpoints than TextEndpoints lists those with the most requests and says how many
// it left out; the JSON report keeps them all.
func TestTextEndpointsTopN(t *testing.T) {
	t.Parallel()
	const n = TextEndpoints + 12
	var p plan.Plan
	iv := result.NewInterval(n)
	for i := range n {
		p.Endpoints = append(p.Endpoints, plan.Endpoint{Name: fmt.Sprintf("ep%03d", i), URL: "http://127.0.0.1:1/"})
		c := iv.Endpoints[i]
		c.Sent, c.Completed, c.OK = uint64(i+1), uint64(i+1), uint64(i+1) // endpoint i sent i+1
		result.RecordDuration(c.Latency, time.Millisecond)
	}
	s := summary.New(summary.Run{Plan: p.Normalized(), Trailer: result.Trailer{MeasuredStart: time.Unix(0, 0), Elapsed: time.Second, Sending: time.Second}}, iv)
	var b strings.Builder
	if err := Text(&b, s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if want := fmt.Sprintf("Endpoints (the %d of %d with the most requests)", TextEndpoints, n); !strings.Contains(out, want) {
		t.Errorf("no %q in\n%s", want, out)
	}
	if want := "… and 12 more endpoints"; !strings.Contains(out, want) {
		t.Errorf("no %q in\n%s", want, out)
	}
	// the 12 that sent the least (ep000 … ep011) are left out; ep012 … ep041 are listed, the busiest first
	for i := range n {
		listed := strings.Contains(out, fmt.Sprintf("  ep%03d ", i))
		if want := i >= 12; listed != want {
			t.Errorf("ep%03d (sent %d) listed: %v; want %v", i, i+1, listed, want)
		}
	}
	if a, z := strings.Index(out, "ep041"), strings.Index(out, "ep012"); a > z {
		t.Errorf("ep041 (sent 42) at %d after ep012 (sent 13) at %d; want the busiest first", a, z)
	}
	var js strings.Builder
	if err := Render(&js, []*summary.Summary{s}, "json", Options{}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(js.String(), `"name": "ep`); got != 2*n {
		t.Errorf("the JSON report names endpoints %d times; want %d (each in the plan and in the figures)", got, 2*n)
	}
}
