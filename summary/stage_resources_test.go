package summary

import (
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/result"
)

// Samples of 1 s intervals, ending at 0 (the baseline), 1, 2, 3, 4 and 5 s, against stages over
// (0, 2] and (2, 4]: stage 1 holds the samples ending at 1 and 2 s, stage 2 those at 3 and 4 s and
// the drain's at 5 s. Figures by hand.
func TestSetStageResources(t *testing.T) {
	u := func(v uint64) *uint64 { return &v }
	sample := func(at int, cpu float64, rss, read uint64) result.ResourceSample {
		iv := time.Second
		if at == 0 {
			iv = 0
		}
		return result.ResourceSample{At: time.Duration(at) * time.Second, Interval: iv, CPUPercent: cpu, RSS: rss, DiskRead: u(read), DiskWrite: u(0)}
	}
	s := &Summary{
		Stages: []Stage{{Index: 1, StartS: 0, EndS: 2}, {Index: 2, StartS: 2, EndS: 4}},
		Resources: []result.Resources{{Target: "pid 7", Samples: []result.ResourceSample{
			sample(0, 99, 1<<40, 1<<40), // the baseline: in no stage
			sample(1, 10, 100, 1000), sample(2, 30, 300, 3000),
			sample(3, 50, 500, 0), sample(4, 70, 700, 0), sample(5, 90, 900, 6000),
		}}},
	}
	s.SetStageResources()
	want := []StageResource{
		{Target: "pid 7", Samples: 2, CPUAvg: 20, CPUPeak: 30, RSSAvg: 200, RSSPeak: 300, DiskReadS: 2000},
		{Target: "pid 7", Samples: 3, CPUAvg: 70, CPUPeak: 90, RSSAvg: 700, RSSPeak: 900, DiskReadS: 2000},
	}
	for i, st := range s.Stages {
		if len(st.Resources) != 1 || st.Resources[0] != want[i] {
			t.Errorf("stage %d resources %+v; want %+v", st.Index, st.Resources, want[i])
		}
	}
}
