package engine

import (
	"time"

	"github.com/rpcbench/rpcbench/plan"
)

// collector closes an interval on every tick: it flushes the recorder, counts the arrivals that fell
// due, merges the interval into the run's total and hands it to the observers.
type collector struct {
	r    *run
	res  *Result
	last time.Duration // offset of the previous tick from the start
}

func newCollector(r *run, res *Result) *collector { return &collector{r: r, res: res} }

func (c *collector) flush(now time.Duration, final bool) {
	r := c.r
	from, to := max(c.last, r.warmup)-r.warmup, max(now, r.warmup)-r.warmup
	iv := r.rec.Flush(from, to)
	if r.p.Load.Model == plan.Open {
		until := min(now, r.sendingEnd())
		if final {
			until = r.sendingEnd()
		}
		iv.Intended = r.intended(until) - min(r.intended(until), r.intended(c.last))
	} else {
		for _, e := range iv.Endpoints {
			iv.Intended += e.Attempted()
		}
	}
	c.res.Total.Merge(iv)
	t := Tick{
		Interval:   iv,
		Elapsed:    now,
		Warmup:     now < r.warmup,
		WarmupSent: r.warmSent.Load(),
		InFlight:   r.inFlight.Load(),
		Final:      final,
	}
	if end := r.tl.End(); end > 0 {
		t.Planned = end
	}
	for _, f := range r.o.observers {
		f(&t)
	}
	c.last = now
}
