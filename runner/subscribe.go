package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/subscribe"
	"github.com/rpcbench/rpcbench/summary"
)

// subscriptions is a plan's subscriptions running beside its calls.
type subscriptions struct {
	labels []string // of the parts, by the stages of the calls
	cancel context.CancelFunc
	done   chan struct{}
	res    *subscribe.Result
	err    error
}

// untilCancelled is the hold of subscriptions beside calls: they end when the calls end.
const untilCancelled = 100 * 365 * 24 * time.Hour

// startSubscriptions starts p's subscriptions, if it has some (their URL checked by
// runSubscriptionsAlone), beside the calls the runner sends, counting them in live as they go;
// finish ends them. Nil when p has none.
func startSubscriptions(ctx context.Context, p plan.Plan, live *subscribe.Live) *subscriptions {
	if p.Subscribe == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &subscriptions{cancel: cancel, done: make(chan struct{})}
	cfg := subscribe.ConfigOf(p, untilCancelled)
	cfg.Marks, r.labels = subscribe.StageMarks(p.Load)
	cfg.Live = live
	go func() {
		defer close(r.done)
		r.res, r.err = subscribe.Run(ctx, cfg)
	}()
	return r
}

// finish ends the subscriptions (the calls are over: they unsubscribe) and puts their figures
// into s.
func (r *subscriptions) finish(s *summary.Summary, warn func(string)) {
	if r == nil {
		return
	}
	r.cancel()
	<-r.done
	if r.err != nil {
		warn(fmt.Sprintf("--subscribe: %v", r.err))
		return
	}
	if s != nil {
		s.Subscriptions = r.res.Summary()
		for i := range s.Subscriptions.Parts {
			s.Subscriptions.Parts[i].Label = r.labels[i]
		}
	}
}
