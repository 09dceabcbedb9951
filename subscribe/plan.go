package subscribe

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/rpcbench/rpcbench/plan"
)

// ConfigOf is the subscriptions of plan p (p.Subscribe, to its one WebSocket URL with its
// headers), held for hold.
func ConfigOf(p plan.Plan, hold time.Duration) Config {
	s := p.Subscribe
	h := http.Header{}
	ep := p.Endpoints[0]
	for _, x := range ep.Header {
		h.Add(x.Name, x.Value)
	}
	cfg := Config{URL: ep.URL, Method: s.Method, Params: s.Params, Count: s.Count, Rate: s.Rate, Hold: hold, Header: h, Reference: s.Reference}
	if p.HTTP.ConnectTimeout > 0 {
		cfg.AnswerTimeout = p.HTTP.ConnectTimeout
	}
	return cfg
}

// StageMarks cuts a run at the end of its warm-up and of each stage but the last, and names the
// parts, with the index (from 1, as --stages lists them) of the stage each part is, 0 for the
// warm-up; none for a run of one level. A stage of no length (a step) has no part: it sets the
// level the next one starts from. As the calls' per-stage figures count it, the level after a
// warm-up starts at the first stage's target, which the warm-up held.
func StageMarks(l plan.Load) (marks []time.Duration, labels []string, stages []int) {
	if len(l.Stages) == 0 && l.Warmup == 0 {
		return nil, nil, nil
	}
	at := l.Warmup
	level := 0.0
	if at > 0 {
		marks, labels, stages = append(marks, at), append(labels, "warm-up"), append(stages, 0)
		if len(l.Stages) > 0 {
			level = l.Stages[0].Target
		}
	}
	last := -1 // the last stage with a length
	for i, st := range l.Stages {
		if st.Duration > 0 {
			last = i
		}
	}
	if last < 0 {
		return marks, append(labels, "measured"), append(stages, 0)
	}
	unit := "/s"
	if l.Model == plan.Closed {
		unit = " connections"
	}
	for i, st := range l.Stages {
		if st.Duration > 0 {
			labels = append(labels, fmt.Sprintf("stage %d: %s → %s%s", i+1, strconv.FormatFloat(level, 'f', -1, 64), strconv.FormatFloat(st.Target, 'f', -1, 64), unit))
			stages = append(stages, i+1)
			at += st.Duration
			if i < last {
				marks = append(marks, at)
			}
		}
		level = st.Target
	}
	return marks, labels, stages
}
