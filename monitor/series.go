package monitor

import (
	"slices"
	"time"
)

// DefaultMaxSamples is how many samples a zero Series keeps: an hour at one sample a second.
const DefaultMaxSamples = 3600

// Series keeps the samples of one target for time-series output and the running aggregates for
// the summary. Memory is bounded: it keeps at most Max samples, spread evenly over the whole run —
// when full it drops every other kept sample and from then on keeps one sample in two (then four,
// eight...), so the kept ones are real samples, never averaged. Avg and Peak are computed over every
// sample added, kept or not, so they stay exact however long the run.
//
// The zero value keeps up to DefaultMaxSamples. A Series is not safe for concurrent use.
type Series struct {
	Max int // samples kept at most; ≤ 1 means DefaultMaxSamples

	n      int // samples added
	stride int // keep sample i when i % stride == 0
	kept   []Sample
	agg    aggregates
}

// Stat is the average and the peak of one figure. Samples is how many samples had the figure; it is
// 0 (and Avg and Peak meaningless) when none did, such as disk bytes that could not be read.
type Stat struct {
	Avg     float64 `json:"avg"`
	Peak    float64 `json:"peak"`
	Samples int     `json:"samples"`
}

// Summary is what a Series says of its whole run.
//
// Rates (CPU %, bytes per second) average over time: total used over total time, so a longer
// interval weighs more. Levels (RSS, threads, FDs) average over samples. Peaks are the highest
// single interval or level.
type Summary struct {
	Samples    int           `json:"samples"`
	Duration   time.Duration `json:"duration_ns"` // from the first sample to the last
	CPUPercent Stat          `json:"cpu_percent"` // of one core: 200 is two cores
	RSS        Stat          `json:"rss_bytes"`
	Threads    Stat          `json:"threads"`
	FDs        Stat          `json:"fds"`
	DiskRead   Stat          `json:"disk_read_bytes_per_second"`
	DiskWrite  Stat          `json:"disk_write_bytes_per_second"`
	NetRx      Stat          `json:"net_rx_bytes_per_second"`
	NetTx      Stat          `json:"net_tx_bytes_per_second"`
	// Totals since the first sample; meaningful only where the matching Stat has Samples > 0.
	DiskReadTotal  uint64 `json:"disk_read_total_bytes"`
	DiskWriteTotal uint64 `json:"disk_write_total_bytes"`
	NetRxTotal     uint64 `json:"net_rx_total_bytes"`
	NetTxTotal     uint64 `json:"net_tx_total_bytes"`
	// NetScope says whose bytes NetRx and NetTx are: NetOwnSockets, NetHostWide, NetNamespaceWide,
	// NetMixed, or "" when no sample had them.
	NetScope string `json:"net_scope,omitempty"`

	// ProcsMin and ProcsMax are the fewest and most processes a sample counted (1 for a cgroup read
	// as a whole).
	ProcsMin int `json:"procs_min"`
	ProcsMax int `json:"procs_max"`
	// PIDs are those of the first sample, ascending (none for a cgroup); PIDChanges the samples
	// whose set of PIDs differed from the one before, the first MaxPIDChanges of them, and
	// PIDChangesTotal how many there were in all.
	PIDs            []int       `json:"pids,omitempty"`
	PIDChanges      []PIDChange `json:"pid_changes,omitempty"`
	PIDChangesTotal int         `json:"pid_changes_total,omitempty"`
}

// MaxPIDChanges bounds the changes of the set of PIDs a Summary keeps: a target that forks a
// process per request changes at every sample.
const MaxPIDChanges = 32

// PIDChange is a sample whose processes differed from the previous sample's: the PIDs that
// appeared (Started) and those gone (Exited), ascending, and how many processes it counted.
type PIDChange struct {
	Time    time.Time `json:"time"`
	Procs   int       `json:"procs"`
	Started []int     `json:"started,omitempty"`
	Exited  []int     `json:"exited,omitempty"`
}

// rate accumulates a per-interval figure weighted by time.
type rate struct {
	sum   float64 // Σ value × seconds
	secs  float64
	peak  float64
	count int
}

func (r *rate) add(v float64, d time.Duration) {
	s := d.Seconds()
	r.sum += v * s
	r.secs += s
	if r.count == 0 || v > r.peak {
		r.peak = v
	}
	r.count++
}

func (r rate) stat() Stat {
	if r.count == 0 || r.secs == 0 {
		return Stat{}
	}
	return Stat{Avg: r.sum / r.secs, Peak: r.peak, Samples: r.count}
}

// level accumulates a level figure, every sample weighing the same.
type level struct {
	sum   float64
	peak  float64
	count int
}

func (l *level) add(v float64) {
	l.sum += v
	if l.count == 0 || v > l.peak {
		l.peak = v
	}
	l.count++
}

func (l level) stat() Stat {
	if l.count == 0 {
		return Stat{}
	}
	return Stat{Avg: l.sum / float64(l.count), Peak: l.peak, Samples: l.count}
}

type aggregates struct {
	first, last                        time.Time
	cpu, rd, wr, rx, tx                rate
	rss, threads, fds                  level
	rdTotal, wrTotal, rxTotal, txTotal uint64
	netOwn, netNS, netNotHost          bool
	procsMin, procsMax                 int
	pids, lastPIDs                     []int
	changes                            []PIDChange
	changesTotal                       int
}

// Add records one sample.
func (s *Series) Add(x Sample) {
	s.aggregate(x)
	max := s.Max
	if max <= 1 {
		max = DefaultMaxSamples
	}
	if s.stride == 0 {
		s.stride = 1
	}
	i := s.n
	s.n++
	if i%s.stride != 0 {
		return
	}
	if len(s.kept) == max {
		// Keep positions 0, 2, 4...: those are samples whose index is a multiple of 2×stride.
		half := s.kept[:0]
		for j := 0; j < len(s.kept); j += 2 {
			half = append(half, s.kept[j])
		}
		clear(s.kept[len(half):])
		s.kept = half
		s.stride *= 2
		if i%s.stride != 0 {
			return
		}
	}
	s.kept = append(s.kept, x)
}

func (s *Series) aggregate(x Sample) {
	a := &s.agg
	if s.n == 0 {
		a.first = x.Time
		a.procsMin, a.procsMax = x.Procs, x.Procs
		a.pids = slices.Clone(x.PIDs)
	} else if c, ok := pidChange(a.lastPIDs, x); ok {
		a.changesTotal++
		if len(a.changes) < MaxPIDChanges {
			a.changes = append(a.changes, c)
		}
	}
	a.lastPIDs = x.PIDs
	a.procsMin, a.procsMax = min(a.procsMin, x.Procs), max(a.procsMax, x.Procs)
	a.last = x.Time
	a.rss.add(float64(x.RSS))
	a.threads.add(float64(x.Threads))
	if x.FDsKnown {
		a.fds.add(float64(x.FDs))
	}
	if x.Interval <= 0 {
		return // the baseline has no interval to measure rates over
	}
	a.cpu.add(x.CPUPercent, x.Interval)
	secs := x.Interval.Seconds()
	if x.DiskKnown {
		a.rd.add(float64(x.DiskRead)/secs, x.Interval)
		a.wr.add(float64(x.DiskWrite)/secs, x.Interval)
		a.rdTotal += x.DiskRead
		a.wrTotal += x.DiskWrite
	}
	if x.NetKnown {
		if x.NetOwn {
			a.netOwn = true
		} else {
			a.netNS = true
			a.netNotHost = a.netNotHost || !x.NetHost
		}
		a.rx.add(float64(x.NetRx)/secs, x.Interval)
		a.tx.add(float64(x.NetTx)/secs, x.Interval)
		a.rxTotal += x.NetRx
		a.txTotal += x.NetTx
	}
}

// Len is how many samples were added (not how many are kept).
func (s *Series) Len() int { return s.n }

// Samples returns a copy of the kept samples, oldest first.
func (s *Series) Samples() []Sample { return append([]Sample(nil), s.kept...) }

// Summary returns the averages, peaks and totals over every sample added.
func (s *Series) Summary() Summary {
	a := s.agg
	return Summary{
		Samples:         s.n,
		Duration:        a.last.Sub(a.first),
		CPUPercent:      a.cpu.stat(),
		RSS:             a.rss.stat(),
		Threads:         a.threads.stat(),
		FDs:             a.fds.stat(),
		DiskRead:        a.rd.stat(),
		DiskWrite:       a.wr.stat(),
		NetRx:           a.rx.stat(),
		NetTx:           a.tx.stat(),
		DiskReadTotal:   a.rdTotal,
		DiskWriteTotal:  a.wrTotal,
		NetRxTotal:      a.rxTotal,
		NetTxTotal:      a.txTotal,
		NetScope:        a.netScope(),
		ProcsMin:        a.procsMin,
		ProcsMax:        a.procsMax,
		PIDs:            slices.Clone(a.pids),
		PIDChanges:      slices.Clone(a.changes),
		PIDChangesTotal: a.changesTotal,
	}
}

func (a *aggregates) netScope() string {
	switch {
	case a.netOwn && a.netNS:
		return NetMixed
	case a.netOwn:
		return NetOwnSockets
	case !a.netNS:
		return ""
	case a.netNotHost:
		return NetNamespaceWide
	}
	return NetHostWide
}

// pidChange compares the PIDs of x with those of the sample before (both ascending); ok is false
// when they are the same.
func pidChange(before []int, x Sample) (c PIDChange, ok bool) {
	i, j := 0, 0
	for i < len(before) || j < len(x.PIDs) {
		switch {
		case j == len(x.PIDs) || i < len(before) && before[i] < x.PIDs[j]:
			c.Exited = append(c.Exited, before[i])
			i++
		case i == len(before) || x.PIDs[j] < before[i]:
			c.Started = append(c.Started, x.PIDs[j])
			j++
		default:
			i++
			j++
		}
	}
	if c.Started == nil && c.Exited == nil {
		return PIDChange{}, false
	}
	c.Time, c.Procs = x.Time, x.Procs
	return c, true
}

// SaturationPercent is the share of the CPU available to a process above which Saturated says it
// was the bottleneck: 90% of cores cores.
const SaturationPercent = 90

// Saturated reports whether some interval used at least SaturationPercent of cores cores — for
// the load generator watching itself, the sign that the figures may be its limit rather than the
// server's. cores is what the process could use: GOMAXPROCS, or fewer if a CPU quota says so.
func (s Summary) Saturated(cores float64) bool {
	return s.CPUPercent.Samples > 0 && s.CPUPercent.Peak >= SaturationPercent*cores
}
