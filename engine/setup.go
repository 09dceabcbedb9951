package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// SetupResult is what a setup phase did.
type SetupResult struct {
	// Sent is the number of setup requests sent, all of which succeeded.
	Sent uint64
	// Took is the setup phase's length.
	Took time.Duration
}

// Setup sends the setup phase of prep (prep.Setup; nothing when it is nil) before the measured
// run: every request must succeed. An error says how far it got and describes the first answer
// that failed; an interrupted setup is an error too. Of the options, WithTransport and WithCut
// apply; observers see only the measured run.
func Setup(ctx context.Context, prep *plan.Prepared, opts ...Option) (SetupResult, error) {
	sp := prep.Setup
	if sp == nil {
		return SetupResult{}, nil
	}
	o := newOptions(opts)
	v := &setupVerifier{}
	setupOpts := []Option{WithVerifier(v)}
	if o.tr != nil {
		setupOpts = append(setupOpts, WithTransport(o.tr))
	}
	if o.cut != nil {
		setupOpts = append(setupOpts, WithCut(o.cut))
	}
	began := time.Now()
	res, err := RunPrepared(ctx, sp, setupOpts...)
	if err != nil {
		return SetupResult{}, fmt.Errorf("setup: %w", err)
	}
	total := res.Total.Total()
	count, file := sp.Plan.Load.Requests, sp.Plan.Traffic.Targets
	switch {
	case res.Interrupted:
		return SetupResult{}, fmt.Errorf("setup: interrupted after %d of %d requests", total.Sent, count)
	case total.Failed() > 0:
		return SetupResult{}, fmt.Errorf("setup: %d of %d requests to %s failed; %s", total.Failed(), total.Sent, file, v.first(total))
	case res.Stop != nil:
		return SetupResult{}, fmt.Errorf("setup: stopped after %d of %d requests: %w", total.Sent, count, res.Stop)
	}
	return SetupResult{Sent: total.Sent, Took: time.Since(began)}, nil
}

// setupVerifier is StatusVerifier that also keeps the first answer that failed.
type setupVerifier struct{ failed atomic.Pointer[string] }

// Verify implements Verifier.
func (v *setupVerifier) Verify(r *transport.Request, out *transport.Outcome) (result.Class, error) {
	c, err := StatusVerifier{}.Verify(r, out)
	if c != result.OK && v.failed.Load() == nil {
		body := strings.TrimSpace(string(out.Body[:min(len(out.Body), 200)]))
		msg := fmt.Sprintf("first: %s %s://%s%s answered status %d", r.Method, r.Scheme, r.Host, r.Path, out.Status)
		if body != "" {
			msg += ": " + body
		}
		v.failed.CompareAndSwap(nil, &msg)
	}
	return c, err
}

// first describes the first failure: an answer that failed, or else the commonest error.
func (v *setupVerifier) first(total *result.Counts) string {
	if p := v.failed.Load(); p != nil {
		return *p
	}
	keys := make([]result.ErrorKey, 0, len(total.Messages))
	for k := range total.Messages {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return total.Messages[keys[i]] > total.Messages[keys[j]] })
	if len(keys) == 0 {
		return "no detail"
	}
	return fmt.Sprintf("%s: %s", keys[0].Class, keys[0].Message)
}
