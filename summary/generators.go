package summary

import (
	"fmt"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
)

// Generator is one generator of a run merged from several result files (`rpcbench report --merge`,
// typically one execution segment each): its own counts, rates and send lag, and whether it kept up
// with its share of the schedule. One generator that fell behind marks the merged run.
type Generator struct {
	File    string `json:"file"`
	Host    string `json:"host,omitempty"`
	Segment string `json:"segment,omitempty"`
	CPUs    int    `json:"cpus,omitempty"`

	Intended     uint64  `json:"intended"`
	Sent         uint64  `json:"sent"`
	Dropped      uint64  `json:"dropped,omitempty"`
	IntendedRate float64 `json:"intended_rate_rps"`
	SendRate     float64 `json:"send_rate_rps"`
	SendLagP99   float64 `json:"send_lag_p99_ms"`
	SendLagMax   float64 `json:"send_lag_max_ms"`
	// StartLate is how late after the shared start (--start-at) it began sending, by its clock.
	StartLate   float64 `json:"start_late_ms,omitempty"`
	Interrupted bool    `json:"interrupted,omitempty"`
	// FellBehind says it did not keep up: Why says how.
	FellBehind bool   `json:"fell_behind,omitempty"`
	Why        string `json:"why,omitempty"`
}

// generators returns the generators of a merged run, and the notes on those that fell behind.
func generators(parts []result.Part, load plan.Load) ([]Generator, []string) {
	var gens []Generator
	var notes []string
	for _, p := range parts {
		if !p.StartAt.Equal(parts[0].StartAt) || p.StartAt.IsZero() {
			notes = append(notes, "the generators did not share one start instant (--start-at): their intervals are added up by number, each counted from its own start, so the timeline is only as aligned as their starts")
			break
		}
	}
	for _, p := range parts {
		g := Generator{
			File: p.Path, Host: p.Host, Segment: p.Segment, CPUs: p.Procs,
			Intended: p.Intended, Sent: p.Sent,
			SendLagP99: ms(int64(p.LagP99 / time.Microsecond)), SendLagMax: ms(int64(p.LagMax / time.Microsecond)),
			StartLate: float64(p.StartLate) / float64(time.Millisecond), Interrupted: p.Interrupted,
		}
		span := max(p.SendSpan, p.Sending)
		if sec := p.Sending.Seconds(); sec > 0 {
			g.IntendedRate = round3(float64(p.Intended) / sec)
		}
		if sec := span.Seconds(); sec > 0 {
			g.SendRate = round3(float64(p.Sent) / sec)
		}
		if load.Model == plan.Open && !p.CutShort {
			g.Dropped = p.Intended - min(p.Intended, p.Attempted)
			made := 0.0
			if sec := span.Seconds(); sec > 0 {
				made = float64(p.Attempted) / sec
			}
			switch {
			case g.Dropped > 0:
				g.Why = fmt.Sprintf("%d of its %d intended requests were never sent", g.Dropped, g.Intended)
			case g.IntendedRate > 0 && made < g.IntendedRate*(1-shortfallPct/100):
				g.Why = fmt.Sprintf("it sent %.1f/s of an intended %.1f/s", made, g.IntendedRate)
			case p.LagP99-load.SendSlack > lagNote: // late beyond the slack it was given
				g.Why = fmt.Sprintf("its requests went out late: send lag p99 %s", FormatMs(g.SendLagP99))
			}
			g.FellBehind = g.Why != ""
		}
		if g.FellBehind {
			notes = append(notes, fmt.Sprintf("generator %s fell behind: %s; the merged run is saturated with it (give it more CPUs or more generators)", g.Name(), g.Why))
		}
		gens = append(gens, g)
	}
	return gens, notes
}

// Name names the generator: its segment and host, or its file.
func (g Generator) Name() string {
	name := g.File
	if g.Segment != "" {
		name = "segment " + g.Segment
	}
	if g.Host != "" {
		name += " on " + g.Host
	}
	return name
}
