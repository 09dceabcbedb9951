package plan

import (
	"fmt"
	"strconv"
	"strings"
)

// ScenarioReplay makes a scenario send a recording (access logs, HAR, JSON-RPC logs, read by
// package replay) to each target at its recorded pace, instead of a load of its own: what
// `rpcbench replay` sends, against every target in turn. The scenario's Plan gives the rest: its
// connections cap, timeouts, TLS, checks and SLO.
type ScenarioReplay struct {
	// Files are read one after the other as one recording, relative to Bench.Dir.
	Files []string `json:"files"`
	// Format is every file's format ("": told by each file's content), or "log_format:LAYOUT" for
	// an access log in nginx's log_format syntax.
	Format string `json:"format,omitempty"`
	// Speed scales the recorded pace (2: twice as fast); 0 means 1. Rate, when above 0, sends the
	// records in recorded order at this constant rate per second instead.
	Speed float64 `json:"speed,omitempty"`
	Rate  float64 `json:"rate,omitempty"`
	// Loop sends the recording this many times (0 means 1).
	Loop int `json:"loop,omitempty"`
	// Every keeps every Every-th record; Sample keeps about this share of them, chosen by Seed.
	Every  uint64  `json:"every,omitempty"`
	Sample float64 `json:"sample,omitempty"`
	Seed   uint64  `json:"seed,omitempty"`
	// Include and Exclude are regular expressions filtering the records by their path.
	Include string `json:"include,omitempty"`
	Exclude string `json:"exclude,omitempty"`
	// DropHeaders are the recorded headers not sent; the scenario's header: lines are sent instead
	// of a recorded header of their name, or added.
	DropHeaders []string `json:"drop_header,omitempty"`
	// RecordedStatus judges each answer by the status recorded for its request.
	RecordedStatus bool `json:"expect_recorded_status,omitempty"`
}

// FilesIn returns the recording's files named relative to dir.
func (r *ScenarioReplay) FilesIn(dir string) []string {
	out := make([]string, len(r.Files))
	for i, f := range r.Files {
		out[i] = relTo(dir, f)
	}
	return out
}

// describe says in a line what the replay sends, as `bench --dry-run` shows it.
func (r *ScenarioReplay) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "replay of %s", strings.Join(r.Files, ", "))
	switch {
	case r.Rate > 0:
		fmt.Fprintf(&b, " in recorded order at %s/s", strconv.FormatFloat(r.Rate, 'f', -1, 64))
	case r.Speed > 0 && r.Speed != 1:
		fmt.Fprintf(&b, " at %s× the recorded pace", strconv.FormatFloat(r.Speed, 'f', -1, 64))
	default:
		b.WriteString(" at the recorded pace")
	}
	if r.Loop > 1 {
		fmt.Fprintf(&b, ", %d passes", r.Loop)
	}
	if r.Every > 1 {
		fmt.Fprintf(&b, ", one record in %d", r.Every)
	}
	if r.Sample > 0 && r.Sample < 1 {
		fmt.Fprintf(&b, ", a %s sample (seed %d)", strconv.FormatFloat(r.Sample, 'f', -1, 64), r.Seed)
	}
	if r.Include != "" {
		fmt.Fprintf(&b, ", paths matching %q", r.Include)
	}
	if r.Exclude != "" {
		fmt.Fprintf(&b, ", paths not matching %q", r.Exclude)
	}
	if r.RecordedStatus {
		b.WriteString(", each answer judged by its recorded status")
	}
	return b.String()
}
