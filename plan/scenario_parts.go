package plan

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// FileError is one problem of a plan file, where it stands: "bench.yaml:12:5: scenarios.rpc.rate:
// …". Key is the dotted path of the key at fault ("" for the file as a whole).
type FileError struct {
	File      string
	Line, Col int
	Key       string
	Msg       string
}

func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	if e.Key != "" {
		b.WriteString(": " + e.Key)
	}
	return b.String() + ": " + e.Msg
}

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

// TargetMonitor says what to watch of a plan file's target while each load runs against it: its
// started command's processes (with their children) unless NoCommand, and whatever else is named.
// The zero value watches the command of a target that has one, and nothing for one that has none.
// It is plain data, safe to copy.
type TargetMonitor struct {
	// NoCommand turns off watching the target's own command (monitor: {command: false}, or
	// monitor: false for nothing at all).
	NoCommand bool `json:"no_command,omitempty"`
	// PIDs are processes watched with their children, each one on its own.
	PIDs []int `json:"pids,omitempty"`
	// Processes are command names; each watches every process of that name.
	Processes []string `json:"processes,omitempty"`
	// Cgroups are cgroup v2 directories.
	Cgroups []string `json:"cgroups,omitempty"`
	// Containers are container names, watched through their cgroup or the Docker Engine API.
	Containers []string `json:"containers,omitempty"`
	// Targets names other targets of the plan whose started commands are watched too: the node
	// behind a relay, say, so each process's figures are side by side.
	Targets []string `json:"targets,omitempty"`
	// Metrics is the URL of the target's Prometheus metrics, and Series the series followed.
	Metrics string   `json:"metrics,omitempty"`
	Series  []string `json:"series,omitempty"`
}

// Watches reports whether m asks for anything beyond the target's command.
func (m TargetMonitor) Watches() bool {
	return len(m.PIDs)+len(m.Processes)+len(m.Cgroups)+len(m.Containers)+len(m.Targets) > 0 || m.Metrics != ""
}
