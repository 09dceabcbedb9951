package gen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/rpcbench/rpcbench/transport"
)

// MaxCallsPerStep bounds the calls of one step: a range or an array larger than this is an error
// rather than a crawl without end (a step's limit: cuts it shorter).
const MaxCallsPerStep = 1_000_000

// JSONRPC is a generic crawl: steps read from a steps file (ReadSteps), each a call whose params
// are filled from the answers of earlier steps, made once or once per item of its for_each. It
// writes the same files as Ethereum, one pair per method, and the same state file (of kind
// "jsonrpc"; such a crawl cannot be resumed).
type JSONRPC struct {
	URL string
	// ShowSecrets writes the key-like query values of URL into the target files as they are
	// (see Ethereum.URL).
	ShowSecrets bool
	Header      []transport.Header
	Steps       []Step
	// StepsFile names the steps file in the state.
	StepsFile string
	Out       string
	// Rate bounds the requests per second sent to the node; 0: no bound.
	Rate float64
	// Timeout bounds one request; 0: DefaultTimeout.
	Timeout time.Duration
	// Progress, if set, is called after each call, from Run's goroutine; Block is the step's
	// number (from 1), Step its name, Done and Total its calls.
	Progress func(Progress)
}

// Run makes the steps' calls and writes the corpus, a step at a time: when a call gets no
// answer, or ctx is done, the files hold every step before the one being made.
func (g JSONRPC) Run(ctx context.Context) (*Summary, error) {
	switch {
	case len(g.Steps) == 0:
		return nil, errors.New("gen: no steps")
	case g.Out == "":
		return nil, errors.New("gen: no output directory")
	case g.Rate < 0 || g.Timeout < 0:
		return nil, errors.New("gen: Rate and Timeout must not be negative")
	}
	if g.Timeout == 0 {
		g.Timeout = DefaultTimeout
	}
	if err := os.MkdirAll(g.Out, 0o755); err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	old, err := ReadState(g.Out)
	if err != nil {
		return nil, err
	}
	if old != nil {
		return nil, fmt.Errorf("gen: %s holds a crawl (of kind %s): write to another directory", g.Out, old.Kind)
	}
	var methods ordered[string]
	for _, s := range g.Steps {
		methods.add(s.Method)
	}
	st := &State{Version: stateVersion, Kind: "jsonrpc", StepsFile: g.StepsFile, From: 1, To: uint64(len(g.Steps)), Next: 1,
		Methods: methods.list, Requests: map[string]int{}, Errors: map[string]int{}, Skipped: map[string]string{},
		Unfilled: map[string]int{}, Sizes: map[string]int64{}}
	c := &stepper{cfg: &g, crawler: crawler{client: newClient(g.URL, g.Header, g.Rate, g.Timeout),
		corpus: newCorpus(g.Out, publicURL(g.URL, g.ShowSecrets), st)}, answers: map[string][]json.RawMessage{}, unfilled: map[string]int{}}
	err = c.run(ctx)
	if cerr := c.corpus.close(); err == nil {
		err = cerr
	}
	return &Summary{State: st}, err
}

type stepper struct {
	crawler
	cfg *JSONRPC
	// answers holds each step's answers, by name: {"result":…} or {"error":…}, in call order.
	answers map[string][]json.RawMessage
	// unfilled counts the calls of the step being made that a template could not fill.
	unfilled map[string]int
}

func (c *stepper) run(ctx context.Context) error {
	st := c.corpus.state
	if err := c.corpus.saveState(); err != nil {
		return err
	}
	for i := range c.cfg.Steps {
		s := &c.cfg.Steps[i]
		err := c.step(ctx, i, s)
		if err != nil {
			c.corpus.discard()
			st.Sent += c.flushSent()
			c.corpus.saveState() //nolint:errcheck // the error said first matters more
			written := "no step is written"
			if i > 0 {
				written = fmt.Sprintf("steps 1 to %d are written", i)
			}
			if ctx.Err() != nil {
				return fmt.Errorf("gen: stopped at step %d (%s, line %d; %s): %w", i+1, s.Name, s.Line, written, ctx.Err())
			}
			return fmt.Errorf("gen: step %d (%s, line %d): %w (%s)", i+1, s.Name, s.Line, err, written)
		}
		for m, n := range c.unfilled {
			st.Unfilled[m] += n
		}
		clear(c.unfilled)
		if err := c.corpus.commit(uint64(i+2), c.flushSent()); err != nil {
			return err
		}
	}
	return nil
}

// step makes the calls of step i.
func (c *stepper) step(ctx context.Context, i int, s *Step) error {
	items, err := c.items(s)
	if err != nil {
		return err
	}
	if s.Limit > 0 && len(items) > s.Limit {
		items = items[:s.Limit]
	}
	st := c.corpus.state
	var params []byte
	for k, item := range items {
		if err := ctx.Err(); err != nil {
			return err
		}
		get := func(ref *Ref) ([]json.RawMessage, error) {
			if ref.Step == "" {
				return ref.Path.Select(item)
			}
			if as := c.answers[ref.Step]; len(as) > 0 {
				return ref.Path.Select(as[0])
			}
			return nil, nil // the step made no call, or the node does not have its method
		}
		params = params[:0]
		if s.Params != nil {
			params, err = s.Params.render(params, get)
			if errors.Is(err, errNoValue) {
				c.unfilled[s.Method]++
				continue
			}
			if err != nil {
				return err
			}
		}
		res, err := c.send(ctx, s.Method, json.RawMessage(params), true)
		var rpcErr *RPCError
		switch {
		case errors.Is(err, errSkipped):
			return nil // the node does not have the method: nothing to answer from
		case errors.As(err, &rpcErr):
			c.answers[s.Name] = append(c.answers[s.Name], mustJSON(map[string]*RPCError{"error": rpcErr}))
		case err != nil:
			return fmt.Errorf("call %d of %d: %w", k+1, len(items), err)
		default:
			c.answers[s.Name] = append(c.answers[s.Name], append(append([]byte(`{"result":`), res...), '}'))
		}
		if c.cfg.Progress != nil {
			total := 0
			for _, counts := range []map[string]int{st.Requests, c.corpus.count} {
				for _, n := range counts {
					total += n
				}
			}
			c.cfg.Progress(Progress{Block: uint64(i + 1), Step: s.Name, Done: uint64(k + 1), Total: uint64(len(items)),
				Sent: st.Sent + c.client.sent - c.sent, Requests: total})
		}
	}
	return nil
}

// items gives what step s iterates over: one nil item when it runs once.
func (c *stepper) items(s *Step) ([]json.RawMessage, error) {
	if s.Each == nil {
		return []json.RawMessage{nil}, nil
	}
	if ref := s.Each.Ref; ref != nil {
		var items []json.RawMessage
		for _, a := range c.answers[ref.Step] {
			vs, err := ref.Path.Select(a)
			if err != nil {
				return nil, err
			}
			for _, v := range vs {
				if string(v) != "null" {
					items = append(items, v)
				}
			}
			if len(items) > MaxCallsPerStep {
				return nil, fmt.Errorf("for_each {{%s}}: more than %d items: bound it with limit:", ref.Src, MaxCallsPerStep)
			}
		}
		return items, nil
	}
	from, err := c.bound(s.Each.From)
	if err != nil {
		return nil, fmt.Errorf("for_each from: %w", err)
	}
	to, err := c.bound(s.Each.To)
	if err != nil {
		return nil, fmt.Errorf("for_each to: %w", err)
	}
	if to < from {
		return nil, nil
	}
	n := to - from + 1
	if s.Limit > 0 && n > uint64(s.Limit) {
		n = uint64(s.Limit)
	}
	if n > MaxCallsPerStep {
		return nil, fmt.Errorf("for_each: %d to %d is more than %d items: bound it with limit:", from, to, MaxCallsPerStep)
	}
	items := make([]json.RawMessage, 0, n)
	for k := range n {
		if s.Each.Hex {
			items = append(items, mustJSON(quantity(from+k)))
		} else {
			items = append(items, mustJSON(from+k))
		}
	}
	return items, nil
}

func (c *stepper) bound(b Bound) (uint64, error) {
	if b.Ref == nil {
		return b.N, nil
	}
	as := c.answers[b.Ref.Step]
	if len(as) == 0 {
		return 0, fmt.Errorf("{{%s}}: step %s has no answer", b.Ref.Src, b.Ref.Step)
	}
	vs, err := b.Ref.Path.Select(as[0])
	if err != nil {
		return 0, err
	}
	if len(vs) == 0 {
		return 0, fmt.Errorf("{{%s}}: no value in %s", b.Ref.Src, clip(as[0], 120))
	}
	n, err := number(vs[0])
	if err != nil {
		return 0, fmt.Errorf("{{%s}}: %v", b.Ref.Src, err)
	}
	return n, nil
}
