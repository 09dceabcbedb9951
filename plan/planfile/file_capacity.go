package planfile

import (
	"strconv"

	"github.com/rpcbench/rpcbench/plan"

	"go.yaml.in/yaml/v3"
)

var capacityKeys = []string{"slo", "start", "max", "factor", "precision", "step", "warmup", "max_steps", "confirm"}

func (f *fileReader) capacity(n *yaml.Node, path string) *plan.ScenarioCapacity {
	c := &plan.ScenarioCapacity{}
	f.mapping(n, path, capacityKeys, func(key string, k, v *yaml.Node) {
		kp := joinKey(path, key)
		switch key {
		case "slo":
			c.SLO = f.slo(v, kp)
		case "start":
			c.Start = f.positiveRate(v, kp)
		case "max":
			c.Max = f.positiveRate(v, kp)
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

// positiveRate reads a rate above 0: 1000, 300/m.
func (f *fileReader) positiveRate(v *yaml.Node, path string) float64 {
	s, ok := f.scalar(v, path, "a rate such as 1000 or 300/m")
	if !ok {
		return 0
	}
	r, err := plan.ParseRate(s)
	if err != nil || r <= 0 {
		f.errorf(v, path, "%q: want a rate above 0, such as 1000 or 300/m", s)
	}
	return r
}

// checkCapacity checks what goes with capacity: the search sets the load, and needs an objective.
func (f *fileReader) checkCapacity(n *yaml.Node, path string, s *plan.Scenario) {
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

func rate64(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
