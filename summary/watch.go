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
	if tr.Err != nil {
		r.Error = strings.TrimPrefix(tr.Err.Error(), "monitor: ")
	}
	r.Samples = make([]result.ResourceSample, 0, len(tr.Samples))
	for _, x := range tr.Samples {
		rs := result.ResourceSample{At: at(x.Time), Interval: x.Interval, Procs: x.Procs, CPUPercent: x.CPUPercent, RSS: x.RSS, Threads: x.Threads}
		if x.FDsKnown {
			rs.FDs = &x.FDs
		}
		if x.DiskKnown && x.Interval > 0 {
			rs.DiskRead, rs.DiskWrite = &x.DiskRead, &x.DiskWrite
		}
		if x.NetKnown && x.Interval > 0 {
			rs.NetRx, rs.NetTx = &x.NetRx, &x.NetTx
		}
		r.Samples = append(r.Samples, rs)
	}
	return r
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
