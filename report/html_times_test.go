package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/plan"
)

// The page shows the service time beside the latency, figure by figure, and the send lag of an
// open-model run; the spectrum chart gets the service time's too.
func TestHTMLServiceTimeBesideLatency(t *testing.T) {
	t.Parallel()
	s := runA()
	if s.Latency.P99 == s.Service.P99 || s.SendLag.P99 == 0 {
		t.Fatalf("fixture: latency p99 %v, service p99 %v, send lag p99 %v; want them apart and a send lag", s.Latency.P99, s.Service.P99, s.SendLag.P99)
	}
	page := render(t, s)
	for _, want := range []string{
		"<h2>Latency and service time</h2>",
		fmt.Sprintf("<tr><td>p50</td><td>%s</td><td>%s</td></tr>", fmtMs(s.Latency.P50), fmtMs(s.Service.P50)),
		fmt.Sprintf("<tr><td>p99</td><td>%s</td><td>%s</td></tr>", fmtMs(s.Latency.P99), fmtMs(s.Service.P99)),
		fmt.Sprintf("<tr><td>max</td><td>%s</td><td>%s</td></tr>", fmtMs(s.Latency.Max), fmtMs(s.Service.Max)),
		fmt.Sprintf("Send lag, how late after its intended time each request went out: p50 %s, p99 %s, max %s.",
			fmtMs(s.SendLag.P50), fmtMs(s.SendLag.P99), fmtMs(s.SendLag.Max)),
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	d := pageData(t, page)
	if len(d.ServiceSpectrum) != 1 || len(d.ServiceSpectrum[0].Y) == 0 {
		t.Fatalf("service spectrum %+v; want one run's", d.ServiceSpectrum)
	}
	// the spectrum's last point is the maximum, its first the minimum
	sp := d.ServiceSpectrum[0]
	if got := sp.Y[len(sp.Y)-1]; got != s.Service.Max {
		t.Errorf("service spectrum ends at %v ms; want the service time's max %v", got, s.Service.Max)
	}
	if got := sp.Y[0]; got != s.Service.Min {
		t.Errorf("service spectrum starts at %v ms; want the service time's min %v", got, s.Service.Min)
	}

	// the closed model has no schedule: no send lag is shown
	c := *runA() // a copy: the fixture is shared
	c.Config.Load.Model = plan.Closed
	if page := render(t, &c); strings.Contains(page, "Send lag, how late") {
		t.Error("a closed-model run shows a send lag")
	}
}
