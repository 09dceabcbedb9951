package report

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// The text report lists each jump with what coincided, or says nothing moved; none when nothing
// jumped.
func TestJumpsText(t *testing.T) {
	s := &summary.Summary{}
	for i := range 5 {
		p := summary.Point{Start: float64(i) + 0.0004, End: float64(i+1) + 0.0004, OK: 10, P99: 2}
		if i == 2 {
			p.P99 = 30
		}
		s.Timeline = append(s.Timeline, p)
	}
	s.Resources = []result.Resources{{Target: "pid 7", Samples: []result.ResourceSample{{At: 3e9, Interval: 1e9, CPUPercent: 5}}}}
	var b strings.Builder
	jumpsText(&b, s)
	want := "\nJumps on the timeline (what coincided among the watched signals: a coincidence, not a cause)\n" +
		"  2s–3s  p99 latency up to 30.0ms (median interval 2.00ms)\n" +
		"         coincided: none of the watched signals moved\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	s.Timeline[2].P99 = 2
	b.Reset()
	if jumpsText(&b, s); b.Len() != 0 {
		t.Errorf("a run without jumps: %q", b.String())
	}
}

// The HTML page shades each jump on the latency chart (the chart data's time.jumps, per run) and
// lists it under the chart with what coincided; a run without jumps has neither.
func TestJumpsHTML(t *testing.T) {
	s := *runA()
	s.Timeline = slices.Clone(s.Timeline)
	var at *summary.Point
	n := 0
	for i := range s.Timeline {
		if p := &s.Timeline[i]; p.Endpoint == "" {
			p.P99 = 2 // a steady p99: no jump
			if n++; n == 6 {
				at = p
			}
		}
	}
	plain := render(t, &s)
	if strings.Contains(plain, `class="jumps"`) || pageData(t, plain).Time.Jumps != nil {
		t.Fatal("a run without jumps: the page lists or marks some")
	}
	at.P99 = 40
	// the target's CPU: 5 % a second, but 90 % over the second that ends with the jump's interval
	var samples []result.ResourceSample
	for sec := 1; sec <= 20; sec++ {
		cpu := 5.0
		if float64(sec) == at.End {
			cpu = 90
		}
		samples = append(samples, result.ResourceSample{At: time.Duration(sec) * time.Second, Interval: time.Second, CPUPercent: cpu})
	}
	s.Resources = []result.Resources{{Target: "pid 7", Samples: samples}}
	page := render(t, &s)
	want := [][]jumpBand{{{From: at.Start, To: at.End}}}
	if got := pageData(t, page).Time.Jumps; !reflect.DeepEqual(got, want) {
		t.Errorf("the chart's jumps: %+v; want %+v", got, want)
	}
	item := fmt.Sprintf("<li><b>%gs–%gs</b> p99 latency up to 40.0ms (median interval 2.00ms)<ul><li>coincided: pid 7: CPU 90%% of one core (median 5%%)</li></ul></li>",
		math.Round(at.Start*10)/10, math.Round(at.End*10)/10)
	if !strings.Contains(page, `<div class="jumps" id="jumps-A">`) || !strings.Contains(page, item) {
		t.Errorf("the page does not list the jump as\n%s", item)
	}
}
