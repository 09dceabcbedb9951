package cli

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/engine"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/schedule"
)

// segmentFlags are the flags that split one run over several generators: the execution segment
// this one runs, the sequence of every generator's parts, and the instant they all start at.
type segmentFlags struct {
	segment  string
	sequence string
	startAt  startAtFlag
}

func (f *segmentFlags) define(fs *flag.FlagSet) {
	fs.Var(segmentFlag{&f.segment}, "segment", "run `PART` of the load, so that several generators run it once: K/N (the K-th of N equal parts, e.g. 2/8) or a fraction range A:B (e.g. 1/8:2/8); arrivals are striped over the parts")
	fs.Var(segmentIndexFlag{&f.segment}, "segment-index", "run part `I/N` of N equal parts counting I from 0, as a Kubernetes Indexed Job numbers its pods: --segment-index $(JOB_COMPLETION_INDEX)/8; the same as --segment I+1/N")
	fs.StringVar(&f.sequence, "segment-sequence", "", "with --segment A:B, the boundaries of every generator's part, `0,A,…,1` (e.g. 0,1/4,1/2,1); give every generator the same")
	fs.Var(&f.startAt, "start-at", "count intended times from `TIME` (RFC 3339, e.g. 2030-01-02T15:04:05Z, or +30s from now), waiting until then, so that generators on several machines share one schedule")
}

// apply puts the segment into the plan's load.
func (f *segmentFlags) apply(p *plan.Plan) {
	p.Load.Segment, p.Load.SegmentSequence = f.segment, f.sequence
}

// options returns the engine options of the flags: the shared start.
func (f *segmentFlags) options() []engine.Option {
	if f.startAt.at.IsZero() {
		return nil
	}
	return []engine.Option{engine.WithStartAt(f.startAt.at)}
}

// segmentFlag is --segment, checked as it is read (a sequence is checked with the plan).
type segmentFlag struct{ v *string }

func (f segmentFlag) String() string {
	if f.v == nil {
		return ""
	}
	return *f.v
}

func (f segmentFlag) Set(s string) error {
	if *f.v != "" {
		return fmt.Errorf("a second part (%s after %s): a generator runs one; give --segment or --segment-index once", s, *f.v)
	}
	if _, err := schedule.ParseSegment(s, ""); err != nil {
		return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "schedule: "))
	}
	*f.v = strings.TrimSpace(s)
	return nil
}

// segmentIndexFlag is --segment-index I/N: --segment I+1/N.
type segmentIndexFlag struct{ v *string }

func (f segmentIndexFlag) String() string { return "" }

func (f segmentIndexFlag) Set(s string) error {
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.ParseUint(is, 10, 64)
	n, err2 := strconv.ParseUint(ns, 10, 64)
	if !ok || err1 != nil || err2 != nil || n == 0 || i >= n {
		return fmt.Errorf("%q: want I/N, part I of N equal parts counting from 0, with 0 ≤ I < N (e.g. 0/8)", s)
	}
	return segmentFlag{f.v}.Set(fmt.Sprintf("%d/%d", i+1, n))
}

// startAtFlag is --start-at: an instant to come, as RFC 3339 or +DURATION from now.
type startAtFlag struct {
	at  time.Time
	now func() time.Time // nil: time.Now
}

func (f *startAtFlag) String() string {
	if f == nil || f.at.IsZero() {
		return ""
	}
	return f.at.Format(time.RFC3339Nano)
}

func (f *startAtFlag) Set(s string) error {
	now := time.Now
	if f.now != nil {
		now = f.now
	}
	t := now()
	if rest, ok := strings.CutPrefix(s, "+"); ok {
		d, err := time.ParseDuration(rest)
		if err != nil || d <= 0 {
			return fmt.Errorf("%q: want a time to come: RFC 3339 (e.g. 2030-01-02T15:04:05Z) or +DURATION from now (e.g. +30s)", s)
		}
		f.at = t.Add(d)
		return nil
	}
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("%q: want a time to come: RFC 3339 (e.g. 2030-01-02T15:04:05Z) or +DURATION from now (e.g. +30s)", s)
	}
	if !at.After(t) {
		return fmt.Errorf("%s is in the past (now is %s): give a time to come, e.g. +30s", s, t.UTC().Format(time.RFC3339))
	}
	f.at = at
	return nil
}

// lateStart is how late after --start-at a generator may start sending without a warning: a wake-up
// takes well under it.
const lateStart = 10 * time.Millisecond

// segmentWarnings says on stderr when the run started sending late after --start-at, or when its
// segment owned none of the load.
func segmentWarnings(e *env, res *engine.Result) {
	if res.Segment != "" && res.Intended == 0 && !res.Interrupted {
		fmt.Fprintf(e.stderr, "rpcbench run: warning: segment %s owns none of this plan's load (its arrivals, connections or requests all fell to other segments): it sent nothing\n", res.Segment)
	}
	if !res.StartAt.IsZero() && res.StartLate > lateStart {
		fmt.Fprintf(e.stderr, "rpcbench run: warning: started %v after --start-at %s (a slow setup, or this machine's clock behind the others'); the arrivals due meanwhile went out late, their latency counted from their intended times\n",
			res.StartLate.Round(time.Millisecond), res.StartAt.Format(time.RFC3339Nano))
	}
}
