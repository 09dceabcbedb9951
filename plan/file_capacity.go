package plan

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// ScenarioCapacity makes a plan file's scenario a capacity search (package capacity) against each
// target: the scenario's requests at one constant rate after another, rising by Factor from Start
// until a step misses SLO, then bisecting. Zero fields take the capacity package's defaults
// (capacity.Config). It is plain data, safe to copy.
type ScenarioCapacity struct {
	// SLO is what each step must meet; empty: the scenario's slo (or the file's).
	SLO       SLO           `json:"slo,omitempty"`
	Start     float64       `json:"start,omitempty"`
	Max       float64       `json:"max,omitempty"`
	Factor    float64       `json:"factor,omitempty"`
	Precision float64       `json:"precision,omitempty"`
	Step      time.Duration `json:"step,omitempty"`
	// Warmup is each step's warm-up at its rate; NoWarmup says none was asked for (warmup: 0).
	Warmup   time.Duration `json:"warmup,omitempty"`
	NoWarmup bool          `json:"no_warmup,omitempty"`
	MaxSteps int           `json:"max_steps,omitempty"`
	// Confirmations is how many runs at one rate must agree for it to end the answer's range.
	Confirmations int `json:"confirm,omitempty"`
}

var capacityKeys = []string{"slo", "start", "max", "factor", "precision", "step", "warmup", "max_steps", "confirm"}

func (f *fileReader) capacity(n *yaml.Node, path string) *ScenarioCapacity {
	c := &ScenarioCapacity{}
	rate := func(v *yaml.Node, kp string) float64 {
		s, ok := f.scalar(v, kp, "a rate such as 1000 or 300/m")
		if !ok {
			return 0
		}
		r, err := ParseRate(s)
		if err != nil || r <= 0 {
			f.errorf(v, kp, "%q: want a rate above 0, such as 1000 or 300/m", s)
		}
		return r
	}
	f.mapping(n, path, capacityKeys, func(key string, k, v *yaml.Node) {
		kp := joinKey(path, key)
		switch key {
		case "slo":
			c.SLO = f.slo(v, kp)
		case "start":
			c.Start = rate(v, kp)
		case "max":
			c.Max = rate(v, kp)
		case "factor":
			if c.Factor = f.number(v, kp); c.Factor != 0 && c.Factor <= 1 {
				f.errorf(v, kp, "%v: want a ratio above 1, such as 2", c.Factor)
			}
		case "precision":
			if c.Precision = f.number(v, kp); c.Precision != 0 && c.Precision >= 1 {
				f.errorf(v, kp, "%v: want a share between 0 and 1, such as 0.05", c.Precision)
			}
		case "step":
			if c.Step = f.duration(v, kp); c.Step == 0 {
				f.errorf(v, kp, "want a measured length above 0, such as 10s")
			}
		case "warmup":
			c.Warmup = f.duration(v, kp)
			c.NoWarmup = c.Warmup == 0
		case "max_steps":
			c.MaxSteps = f.count(v, kp)
		case "confirm":
			if c.Confirmations = f.count(v, kp); c.Confirmations > 20 {
				f.errorf(v, kp, "%d: want 1 to 20 runs", c.Confirmations)
			}
		}
	})
	if c.Start > 0 && c.Max > 0 && c.Max < c.Start {
		f.errorf(n, path, "max %s/s is below start %s/s", rate64(c.Max), rate64(c.Start))
	}
	return c
}

// checkCapacity checks what goes with capacity: the search sets the load, and needs an objective.
func (f *fileReader) checkCapacity(n *yaml.Node, path string, s *Scenario) {
	c := s.Capacity
	if c == nil {
		return
	}
	l := s.Plan.Load
	if len(s.Steps) > 0 || l.Rate > 0 || len(l.Stages) > 0 || l.Duration > 0 || l.Warmup > 0 || l.Requests > 0 || l.Model != "" {
		f.errorf(n, path, "capacity: sets the rate and length of each step: drop model, rate, stages, steps, duration, warmup and requests (connections caps the connections)")
	}
	for i := 0; n.Kind == yaml.MappingNode && i < len(n.Content); i += 2 {
		if n.Content[i].Value == "require_valid" {
			f.errorf(n.Content[i], path+".require_valid", "a capacity search judges each step by its SLO alone, not by the validity verdict: drop require_valid here")
		}
	}
	if len(c.SLO) == 0 {
		c.SLO = s.Plan.SLO
	}
	if len(c.SLO) == 0 {
		f.errorf(n, path+".capacity", "no objective: give slo: (e.g. slo: p99<50ms,errors<1%%) in capacity:, the scenario or the file")
	}
}

// capacityLoad is the load of a capacity scenario's first step, for checks and --dry-run: the
// open model at the start rate (100/s when not given) for one step (10 s when not given).
func (c *ScenarioCapacity) capacityLoad(l Load) Load {
	start, step := c.Start, c.Step
	if start == 0 {
		start = 100
	}
	if step == 0 {
		step = 10 * time.Second
	}
	return Load{Model: Open, Rate: start, Duration: step, Warmup: c.Warmup, Connections: l.Connections, Interval: l.Interval}
}

// describe says what the search does: "capacity search against p99<50ms: from 100/s up to 10000/s,
// 10s steps".
func (c *ScenarioCapacity) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "capacity search against %s", c.SLO)
	if c.Start > 0 {
		fmt.Fprintf(&b, ", from %s/s", rate64(c.Start))
	}
	if c.Max > 0 {
		fmt.Fprintf(&b, ", up to %s/s", rate64(c.Max))
	}
	if c.Step > 0 {
		fmt.Fprintf(&b, ", %v steps", c.Step)
	}
	if c.Warmup > 0 {
		fmt.Fprintf(&b, " after %v of warm-up each", c.Warmup)
	}
	if c.MaxSteps > 0 {
		fmt.Fprintf(&b, ", at most %d steps", c.MaxSteps)
	}
	return b.String()
}

func rate64(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
