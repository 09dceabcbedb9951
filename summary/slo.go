package summary

import (
	"github.com/rpcbench/rpcbench/plan"
)

// SLOResults is the verdict of a run against its SLO: each objective with what was measured.
type SLOResults struct {
	// Pass is true when every objective holds.
	Pass       bool        `json:"pass"`
	Objectives []SLOResult `json:"objectives"`
}

// SLOResult is one objective judged.
type SLOResult struct {
	// Objective is the objective as --slo takes it: "p99<50ms".
	Objective string `json:"objective"`
	// Value is what was measured, in the unit of Threshold: ms for latency, a fraction for errors
	// and rate, per second for rps.
	Value     float64 `json:"value"`
	Threshold float64 `json:"threshold"`
	Pass      bool    `json:"pass"`
	// Note says why an objective could not be measured (and so failed): "no answers".
	Note string `json:"note,omitempty"`
}

// Failed returns the objectives that do not hold.
func (r *SLOResults) Failed() []SLOResult {
	var out []SLOResult
	for _, o := range r.Objectives {
		if !o.Pass {
			out = append(out, o)
		}
	}
	return out
}

// ErrorShare is the share of the intended requests that did not succeed: those that failed and
// those never sent, (Errors + Dropped) / Intended; 0 when nothing was intended.
func (s *Summary) ErrorShare() float64 {
	r := s.Requests
	if r.Intended == 0 {
		return 0
	}
	return float64(r.Errors+r.Dropped) / float64(r.Intended)
}

// Achieved is the successful answers per second, over the whole run (DurationS: from the measured
// start to the last answer).
func (s *Summary) Achieved() float64 {
	if s.DurationS <= 0 {
		return 0
	}
	return float64(s.Requests.OK) / s.DurationS
}

// JudgeSLO judges s against slo; nil when slo has no objective. Latency objectives judge the
// latency from the intended send time. An objective that cannot be measured fails, with a note:
// latency when no request was answered, errors and rate when no request was intended.
func JudgeSLO(s *Summary, slo plan.SLO) *SLOResults {
	if len(slo) == 0 {
		return nil
	}
	res := &SLOResults{Pass: true}
	answered := s.LatencyHist != nil && s.LatencyHist.TotalCount() > 0 || s.LatencyHist == nil && s.Requests.Completed > 0
	for _, o := range slo {
		r := SLOResult{Objective: o.String(), Threshold: o.Threshold}
		switch {
		case o.IsLatency():
			r.Value = latencyOf(s.Latency, o.Metric)
			if !answered {
				r.Note = "no answers"
			}
		case o.Metric == "errors":
			r.Value = s.ErrorShare()
		case o.Metric == "rate":
			if s.IntendedRate > 0 {
				r.Value = s.Achieved() / s.IntendedRate
			}
		case o.Metric == "rps":
			r.Value = s.Achieved()
		default:
			r.Note = "unknown metric"
		}
		if (o.Metric == "errors" || o.Metric == "rate") && s.Requests.Intended == 0 {
			r.Note = "no request intended"
		}
		r.Pass = r.Note == "" && o.Holds(r.Value)
		res.Pass = res.Pass && r.Pass
		res.Objectives = append(res.Objectives, r)
	}
	return res
}

func latencyOf(p Percentiles, metric string) float64 {
	switch metric { // an objective's names of p99.9 and p99.99
	case "p999":
		metric = "p99.9"
	case "p9999":
		metric = "p99.99"
	}
	v, _ := p.Stat(metric)
	return v
}

// Stat returns the figure of p that name names: min, mean, stdev, p50, p75, p90, p95, p99, p99.9,
// p99.99 or max; false for another name.
func (p Percentiles) Stat(name string) (float64, bool) {
	switch name {
	case "min":
		return p.Min, true
	case "mean":
		return p.Mean, true
	case "stdev":
		return p.Stdev, true
	case "p50":
		return p.P50, true
	case "p75":
		return p.P75, true
	case "p90":
		return p.P90, true
	case "p95":
		return p.P95, true
	case "p99":
		return p.P99, true
	case "p99.9":
		return p.P999, true
	case "p99.99":
		return p.P9999, true
	case "max":
		return p.Max, true
	}
	return 0, false
}
