package summary

import (
	"math"
	"time"
)

// StageResource is what one monitored target spent during one stage: the samples whose interval
// ended inside the stage's planned span.
type StageResource struct {
	Target string `json:"target"`
	// Samples counts the samples in the stage; the figures are their average and peak.
	Samples    int     `json:"samples"`
	CPUAvg     float64 `json:"cpu_percent_avg"`
	CPUPeak    float64 `json:"cpu_percent_peak"`
	RSSAvg     float64 `json:"rss_bytes_avg"`
	RSSPeak    uint64  `json:"rss_bytes_peak"`
	DiskReadS  float64 `json:"disk_read_bytes_per_s,omitempty"`
	DiskWriteS float64 `json:"disk_write_bytes_per_s,omitempty"`
}

// SetStageResources gives each stage of s the resources of each monitored target in it: the
// samples (each covering one interval) whose end falls in the stage's span (start, end], the
// drain after the last stage counted in the last, as the stage figures count their intervals.
// Call it once both s.Stages and s.Resources are set; it does nothing when either is empty.
func (s *Summary) SetStageResources() {
	for i := range s.Stages {
		st := &s.Stages[i]
		st.Resources = nil
		lo, hi := seconds(st.StartS), seconds(st.EndS)
		last := i == len(s.Stages)-1
		for _, r := range s.Resources {
			sr := StageResource{Target: r.Target}
			var cpu, rss, rd, wr float64
			var span time.Duration
			for _, x := range r.Samples {
				if x.Interval <= 0 || x.At <= lo || x.At > hi && !last {
					continue // the baseline, or another stage's
				}
				sr.Samples++
				cpu += x.CPUPercent
				rss += float64(x.RSS)
				sr.CPUPeak = max(sr.CPUPeak, x.CPUPercent)
				sr.RSSPeak = max(sr.RSSPeak, x.RSS)
				if x.DiskRead != nil && x.DiskWrite != nil {
					rd += float64(*x.DiskRead)
					wr += float64(*x.DiskWrite)
					span += x.Interval
				}
			}
			if sr.Samples == 0 {
				continue
			}
			sr.CPUAvg, sr.RSSAvg = cpu/float64(sr.Samples), rss/float64(sr.Samples)
			if span > 0 {
				sr.DiskReadS, sr.DiskWriteS = rd/span.Seconds(), wr/span.Seconds()
			}
			st.Resources = append(st.Resources, sr)
		}
	}
}

// seconds converts seconds to a Duration, to the nanosecond.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }
