package summary

import (
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/monitor"
	"github.com/rpcbench/rpcbench/result"
)

// ResourcesOf turns what a monitor.Watch saw of one target into the result file's record, label
// naming the target; at places a sample's time on the run's timeline (its offset from the measured
// start). Figures a sample could not read (disk, network, open files) are left out, not zero.
func ResourcesOf(tr monitor.WatchResult, label string, at func(time.Time) time.Duration) result.Resources {
	stat := func(x monitor.Stat) result.ResourceStat {
		return result.ResourceStat{Avg: x.Avg, Peak: x.Peak, Samples: x.Samples}
	}
	sm := tr.Summary
	r := result.Resources{Target: label, Summary: result.ResourceSummary{
		Samples: sm.Samples, Duration: sm.Duration,
		CPUPercent: stat(sm.CPUPercent), RSS: stat(sm.RSS), Threads: stat(sm.Threads), FDs: stat(sm.FDs),
		DiskRead: stat(sm.DiskRead), DiskWrite: stat(sm.DiskWrite), NetRx: stat(sm.NetRx), NetTx: stat(sm.NetTx),
		DiskReadTotal: sm.DiskReadTotal, DiskWriteTotal: sm.DiskWriteTotal, NetRxTotal: sm.NetRxTotal, NetTxTotal: sm.NetTxTotal,
		NetScope: sm.NetScope, ProcsMin: sm.ProcsMin, ProcsMax: sm.ProcsMax,
	}, PIDs: sm.PIDs, PIDChangesTotal: sm.PIDChangesTotal}
	for _, c := range sm.PIDChanges {
		r.PIDChanges = append(r.PIDChanges, result.PIDChange{At: at(c.Time), Procs: c.Procs, Started: c.Started, Exited: c.Exited})
	}
	if h := sm.Host; h != nil {
		r.Host = &result.HostCPU{CPUs: h.CPUs, Online: h.Online, OthersPercent: stat(h.Others), StealPercent: stat(h.Steal), Running: stat(h.Running)}
	}
	if tr.Err != nil {
		r.Error = strings.TrimPrefix(tr.Err.Error(), "monitor: ")
	}
	r.Samples = make([]result.ResourceSample, 0, len(tr.Samples))
	for _, x := range tr.Samples {
		r.Samples = append(r.Samples, ResourceSampleOf(x, at(x.Time)))
	}
	return r
}

// ResourceSampleOf turns one sample of a watched target into the result file's record, at its
// offset on the run's timeline. Figures it could not read are left out, not zero.
func ResourceSampleOf(x monitor.Sample, at time.Duration) result.ResourceSample {
	rs := result.ResourceSample{At: at, Interval: x.Interval, Procs: x.Procs, CPUPercent: x.CPUPercent, RSS: x.RSS, Threads: x.Threads}
	if x.FDsKnown {
		rs.FDs = &x.FDs
	}
	if x.DiskKnown && x.Interval > 0 {
		rs.DiskRead, rs.DiskWrite = &x.DiskRead, &x.DiskWrite
	}
	if x.NetKnown && x.Interval > 0 {
		rs.NetRx, rs.NetTx = &x.NetRx, &x.NetTx
	}
	return rs
}

// MetricsOf turns the scrapes of a monitor.Watch into the result file's record: url as the
// outputs show it (redacted), raw as the scraper used it (replaced by url in error messages),
// series the selectors as the scraper names them.
func MetricsOf(url, raw string, series []string, w monitor.WatchResults, at func(time.Time) time.Duration) *result.Metrics {
	m := &result.Metrics{URL: url, Series: series, Types: make([]string, len(series)), Samples: []result.MetricsSample{}}
	if w.MetricsErr != nil {
		m.Error = strings.ReplaceAll(strings.TrimPrefix(w.MetricsErr.Error(), "monitor: "), raw, url)
	}
	for _, x := range w.Metrics {
		ms := result.MetricsSample{At: at(x.Time), Values: make([]*float64, len(x.Values))}
		for j, v := range x.Values {
			if v.Known {
				ms.Values[j] = &v.Value
			}
			if m.Types[j] == "" {
				m.Types[j] = v.Type
			}
		}
		m.Samples = append(m.Samples, ms)
	}
	return m
}

// MarkSelf marks r as the load generator watching itself: the CPUs it could use
// (monitor.UsableCPUs), its send lag p99 per measured interval (ms) and its garbage collector's
// pauses during the watch w.
func MarkSelf(r *result.Resources, w monitor.WatchResults, lag []float64) {
	r.Self, r.Cores, r.SendLagP99 = true, monitor.UsableCPUs(), lag
	if !w.Start.IsZero() {
		msOf := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		r.GCPauses = &result.GCPauses{Count: w.GCPauses.Count, MaxLowMs: msOf(w.GCPauses.MaxLow), MaxMs: msOf(w.GCPauses.Max)}
	}
}
