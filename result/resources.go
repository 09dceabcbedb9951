package result

import (
	"encoding/json"
	"fmt"
	"time"
)

// Resources is what a resource monitor saw of one target (processes, a cgroup, the generator
// itself) during the measured part of a run: averages and peaks over every sample, and the samples
// kept for time-series output. It is one "resources" line of a result file, written after the last
// interval and before the trailer (format 1.1; a reader of 1.0 skips it, and a file of 1.0 simply
// has none). The zero value is a target that was never sampled.
type Resources struct {
	// Target names what was watched: "pid 1234", "process nginx", "cgroup /sys/fs/cgroup/…",
	// "container web", "rpcbench (self)".
	Target string `json:"target"`
	// Self marks the load generator watching itself; Cores is then how many CPUs it could use
	// (the least of GOMAXPROCS, its CPU affinity and its cgroup's quota), against which its CPU %
	// is judged.
	Self  bool    `json:"self,omitempty"`
	Cores float64 `json:"cores,omitempty"`
	// Host is, for the generator itself, what else ran on the CPUs it could run on; nil when
	// /proc/stat could not be read (or in files written before it was kept).
	Host *HostCPU `json:"host,omitempty"`
	// GCPauses counts, for the generator itself, its garbage collector's stop-the-world pauses
	// during the measured part; nil when not read.
	GCPauses *GCPauses `json:"gc_pauses,omitempty"`
	// SendLagP99 is, for the generator itself, the p99 send lag of each measured interval in
	// milliseconds: a lag that keeps growing says the generator could not keep up.
	SendLagP99 []float64 `json:"send_lag_p99_ms,omitempty"`
	// PIDs are the processes the first sample counted, ascending (none for a cgroup, read as a
	// whole); PIDChanges are the samples whose processes differed from the sample before (the
	// first few), PIDChangesTotal how many did in all.
	PIDs            []int       `json:"pids,omitempty"`
	PIDChanges      []PIDChange `json:"pid_changes,omitempty"`
	PIDChangesTotal int         `json:"pid_changes_total,omitempty"`
	// Listeners are, for processes watched by PID or by name, the processes of this machine that
	// listened on the port of the run's target URL (each endpoint's) when the load ended: those that
	// answered it, each marked Watched when it was one of this target's processes.
	// ListenersHidden counts the sockets listening there whose process this user may not see. None
	// when not looked up: a cgroup, a target on another machine, a system that does not tell.
	Listeners       []Listener `json:"listeners,omitempty"`
	ListenersHidden int        `json:"listeners_hidden,omitempty"`
	// Error says why sampling stopped before the run ended (the figures cover the samples before).
	Error   string           `json:"error,omitempty"`
	Summary ResourceSummary  `json:"summary"`
	Samples []ResourceSample `json:"samples"`
}

// HostCPU is what the CPUs the generator could run on did besides it during the measured part, from
// /proc/stat each interval: other processes' CPU time on them and the time a hypervisor stole from
// them, in percent of one core, and the tasks runnable on the whole machine (a level).
type HostCPU struct {
	CPUs          int          `json:"cpus"`        // the CPUs it could run on (its affinity)
	Online        int          `json:"online_cpus"` // the machine's
	OthersPercent ResourceStat `json:"others_cpu_percent"`
	StealPercent  ResourceStat `json:"steal_percent"`
	Running       ResourceStat `json:"procs_running"`
}

// Listener is a process that listened on the target's port (Addr, ip:port), by PID and command
// name; Watched when it was one of the watched processes (or below one).
type Listener struct {
	Addr    string `json:"addr"`
	PID     int    `json:"pid"`
	Comm    string `json:"comm"`
	Watched bool   `json:"watched"`
}

// GCPauses counts the generator's garbage-collection pauses. The longest lasted at least MaxLowMs
// and less than MaxMs: the edges of the Go runtime's histogram bucket it fell in.
type GCPauses struct {
	Count    uint64  `json:"count"`
	MaxLowMs float64 `json:"max_low_ms"`
	MaxMs    float64 `json:"max_ms"`
}

// PIDChange is a sample whose processes differed from the sample before: At its time from the
// measured start, Procs how many it counted, the PIDs that appeared and those gone.
type PIDChange struct {
	At      time.Duration `json:"at_ns"`
	Procs   int           `json:"procs"`
	Started []int         `json:"started,omitempty"`
	Exited  []int         `json:"exited,omitempty"`
}

// ResourceStat is the average and the peak of one figure over the samples that had it; Samples 0
// means none did (e.g. disk counters another user's process does not let us read).
type ResourceStat struct {
	Avg     float64 `json:"avg"`
	Peak    float64 `json:"peak"`
	Samples int     `json:"samples"`
}

// ResourceSummary is what the samples of one target say of the whole measured part. Rates (CPU %,
// bytes per second) average over time; levels (RSS, threads, open files) over samples.
type ResourceSummary struct {
	Samples    int           `json:"samples"`
	Duration   time.Duration `json:"duration_ns"`
	CPUPercent ResourceStat  `json:"cpu_percent"` // of one core: 200 is two cores busy
	RSS        ResourceStat  `json:"rss_bytes"`
	Threads    ResourceStat  `json:"threads"`
	FDs        ResourceStat  `json:"open_files"`
	DiskRead   ResourceStat  `json:"disk_read_bytes_per_s"`
	DiskWrite  ResourceStat  `json:"disk_write_bytes_per_s"`
	NetRx      ResourceStat  `json:"net_rx_bytes_per_s"`
	NetTx      ResourceStat  `json:"net_tx_bytes_per_s"`
	// Totals over the measured part; meaningful where the matching stat has samples.
	DiskReadTotal  uint64 `json:"disk_read_total_bytes"`
	DiskWriteTotal uint64 `json:"disk_write_total_bytes"`
	NetRxTotal     uint64 `json:"net_rx_total_bytes"`
	NetTxTotal     uint64 `json:"net_tx_total_bytes"`
	// NetScope says whose bytes the network figures are: "own TCP sockets" (the TCP payload of the
	// connections the target held open at each sample), "host-wide" (the machine's own network
	// namespace: every process on it) or "netns-wide" (the target's namespace, every process in
	// it); empty when none was read, or in a file written before it was recorded, whose figures
	// were the namespace's.
	NetScope string `json:"net_scope,omitempty"`
	// ProcsMin and ProcsMax are the fewest and most processes a sample counted (1 for a cgroup);
	// both 0 in a file written before they were recorded.
	ProcsMin int `json:"procs_min,omitempty"`
	ProcsMax int `json:"procs_max,omitempty"`
}

// ResourceSample is one interval of one target. At is the end of the interval, from the measured
// start; the first sample of a target is its baseline (Interval 0, no rates). A nil pointer is a
// figure that could not be read.
type ResourceSample struct {
	At         time.Duration `json:"at_ns"`
	Interval   time.Duration `json:"interval_ns"`
	Procs      int           `json:"procs"`
	CPUPercent float64       `json:"cpu_percent"`
	RSS        uint64        `json:"rss_bytes"`
	Threads    int           `json:"threads"`
	FDs        *int          `json:"open_files,omitempty"`
	DiskRead   *uint64       `json:"disk_read_bytes,omitempty"` // during the interval
	DiskWrite  *uint64       `json:"disk_write_bytes,omitempty"`
	NetRx      *uint64       `json:"net_rx_bytes,omitempty"`
	NetTx      *uint64       `json:"net_tx_bytes,omitempty"`
}

// Metrics is the target's own Prometheus series, scraped on the run's timeline: one "metrics"
// line of a result file (format 1.1). Values of a counter are its increase per second.
type Metrics struct {
	URL    string   `json:"url"`
	Series []string `json:"series"` // the selectors, e.g. http_requests_total{code="200"}
	Types  []string `json:"types"`  // "gauge", "counter", "untyped", or "" when never matched
	// Error says why scraping stopped before the run ended.
	Error   string          `json:"error,omitempty"`
	Samples []MetricsSample `json:"samples"`
}

// MetricsSample is one scrape: At from the measured start, one value per series (nil when the
// series did not match, or a counter's first scrape).
type MetricsSample struct {
	At     time.Duration `json:"at_ns"`
	Values []*float64    `json:"values"`
}

// WriteResources writes one "resources" line per target, after the intervals and before Close.
func (fw *Writer) WriteResources(rs ...Resources) error {
	for _, r := range rs {
		if fw.closed {
			return fmt.Errorf("result: write to a closed Writer")
		}
		if err := fw.line(struct {
			Kind string `json:"kind"`
			Resources
		}{"resources", r}); err != nil {
			return err
		}
	}
	return nil
}

// WriteMetrics writes the "metrics" line, after the intervals and before Close.
func (fw *Writer) WriteMetrics(m Metrics) error {
	if fw.closed {
		return fmt.Errorf("result: write to a closed Writer")
	}
	return fw.line(struct {
		Kind string `json:"kind"`
		Metrics
	}{"metrics", m})
}

// WriteSubscriptions writes the "subscriptions" line, after the intervals and before Close: the
// figures of the run's JSON-RPC subscriptions (a JSON object, summary.Subscriptions), under the
// member "subscriptions".
func (fw *Writer) WriteSubscriptions(subs json.RawMessage) error {
	if fw.closed {
		return fmt.Errorf("result: write to a closed Writer")
	}
	return fw.line(struct {
		Kind          string          `json:"kind"`
		Subscriptions json.RawMessage `json:"subscriptions"`
	}{"subscriptions", subs})
}

// maxResourceSamples bounds the samples one record may hold when read: a monitor keeps at most a
// few thousand, so more is a damaged or hostile file.
const maxResourceSamples = 1 << 20

// Resources returns the "resources" records read so far, in file order.
func (fr *Reader) Resources() []Resources { return fr.resources }

// Metrics returns the "metrics" record once read; nil when the file has none.
func (fr *Reader) Metrics() *Metrics { return fr.metrics }

// Subscriptions returns the "subscriptions" record's figures once read (a JSON object, as
// summary.Subscriptions reads it); nil when the file has none.
func (fr *Reader) Subscriptions() json.RawMessage { return fr.subscriptions }

// readExtra reads a record of the kinds beside intervals; ok is false for a kind it does not know.
func (fr *Reader) readExtra(kind string, b []byte) (ok bool, err error) {
	switch kind {
	case "resources":
		var r struct {
			Kind string `json:"kind"`
			Resources
		}
		if err := json.Unmarshal(b, &r); err != nil {
			return true, fr.errorf("bad resources record: %v", err)
		}
		if len(r.Samples) > maxResourceSamples {
			return true, fr.errorf("a resources record of %d samples; at most %d", len(r.Samples), maxResourceSamples)
		}
		fr.resources = append(fr.resources, r.Resources)
		return true, nil
	case "metrics":
		var m struct {
			Kind string `json:"kind"`
			Metrics
		}
		if err := json.Unmarshal(b, &m); err != nil {
			return true, fr.errorf("bad metrics record: %v", err)
		}
		if len(m.Samples) > maxResourceSamples {
			return true, fr.errorf("a metrics record of %d samples; at most %d", len(m.Samples), maxResourceSamples)
		}
		for i, s := range m.Samples {
			if len(s.Values) != len(m.Series) {
				return true, fr.errorf("metrics sample %d has %d values for %d series", i+1, len(s.Values), len(m.Series))
			}
		}
		if fr.metrics != nil {
			return true, fr.errorf("a second metrics record")
		}
		fr.metrics = &m.Metrics
		return true, nil
	case "subscriptions":
		var r struct {
			Subscriptions json.RawMessage `json:"subscriptions"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			return true, fr.errorf("bad subscriptions record: %v", err)
		}
		if len(r.Subscriptions) == 0 || r.Subscriptions[0] != '{' {
			return true, fr.errorf("a subscriptions record without its figures: want {\"kind\":\"subscriptions\",\"subscriptions\":{…}}")
		}
		if fr.subscriptions != nil {
			return true, fr.errorf("a second subscriptions record")
		}
		fr.subscriptions = r.Subscriptions
		return true, nil
	}
	return false, nil
}
