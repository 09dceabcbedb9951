package monitor

import (
	"reflect"
	"testing"
	"time"
)

func TestSeriesSummary(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var s Series
	// Baseline, then 1 s at 100% and 3 s at 20%: time-weighted average (100 + 60) / 4 = 40%.
	s.Add(Sample{Time: t0, RSS: 10, Threads: 1, FDsKnown: true, FDs: 3, DiskKnown: true, NetKnown: true})
	s.Add(Sample{Time: t0.Add(time.Second), Interval: time.Second, CPUPercent: 100, RSS: 30, Threads: 3, FDsKnown: true, FDs: 5,
		DiskKnown: true, DiskRead: 1000, NetKnown: true, NetTx: 400})
	s.Add(Sample{Time: t0.Add(4 * time.Second), Interval: 3 * time.Second, CPUPercent: 20, RSS: 20, Threads: 2,
		DiskKnown: true, DiskRead: 3000, NetKnown: true, NetTx: 0})
	got := s.Summary()
	want := Summary{
		Samples:       3,
		Duration:      4 * time.Second,
		CPUPercent:    Stat{Avg: 40, Peak: 100, Samples: 2},
		RSS:           Stat{Avg: 20, Peak: 30, Samples: 3},
		Threads:       Stat{Avg: 2, Peak: 3, Samples: 3},
		FDs:           Stat{Avg: 4, Peak: 5, Samples: 2},       // the last sample's fds were unknown
		DiskRead:      Stat{Avg: 1000, Peak: 1000, Samples: 2}, // 4000 bytes in 4 s; 1000/s each interval
		DiskWrite:     Stat{Avg: 0, Peak: 0, Samples: 2},
		NetRx:         Stat{Avg: 0, Peak: 0, Samples: 2},
		NetTx:         Stat{Avg: 100, Peak: 400, Samples: 2}, // 400 bytes in 4 s
		DiskReadTotal: 4000,
		NetTxTotal:    400,
		NetScope:      NetNamespaceWide, // NetHost false: not the host's namespace
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	var empty Series
	if got := empty.Summary(); !reflect.DeepEqual(got, Summary{}) {
		t.Errorf("got %+v for no samples; want the zero Summary", got)
	}
}

// A full Series halves what it keeps and keeps every other sample from then on: the kept ones
// stay spread over the whole run.
func TestSeriesBounded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		max, add int
		want     []int // indices of the samples kept
	}{
		{max: 4, add: 4, want: []int{0, 1, 2, 3}},
		{max: 4, add: 5, want: []int{0, 2, 4}},
		{max: 4, add: 8, want: []int{0, 2, 4, 6}},
		{max: 4, add: 9, want: []int{0, 4, 8}},
		{max: 4, add: 20, want: []int{0, 8, 16}},
		{max: 5, add: 11, want: []int{0, 4, 8}},
	}
	for _, tt := range tests {
		s := Series{Max: tt.max}
		for i := 0; i < tt.add; i++ {
			s.Add(Sample{Threads: i})
		}
		var got []int
		for _, x := range s.Samples() {
			got = append(got, x.Threads)
		}
		if len(got) != len(tt.want) || len(got) > tt.max || s.Len() != tt.add {
			t.Errorf("max %d, %d added: got %v (len %d); want %v", tt.max, tt.add, got, s.Len(), tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("max %d, %d added: got %v; want %v", tt.max, tt.add, got, tt.want)
				break
			}
		}
		// The peak is exact even when the sample holding it was dropped.
		if p := s.Summary().Threads.Peak; p != float64(tt.add-1) {
			t.Errorf("max %d, %d added: got peak %v; want %d", tt.max, tt.add, p, tt.add-1)
		}
	}
}

func TestSaturated(t *testing.T) {
	t.Parallel()
	tests := []struct {
		peak  float64
		n     int
		cores float64
		want  bool
	}{
		{peak: 95, n: 3, cores: 1, want: true},    // a full core
		{peak: 89.9, n: 3, cores: 1, want: false}, // just under 90%
		{peak: 95, n: 3, cores: 2, want: false},   // half of two cores
		{peak: 180, n: 3, cores: 2, want: true},   // 90% of two cores
		{peak: 0, n: 0, cores: 0, want: false},    // no interval measured
	}
	for _, tt := range tests {
		s := Summary{CPUPercent: Stat{Peak: tt.peak, Samples: tt.n}}
		if got := s.Saturated(tt.cores); got != tt.want {
			t.Errorf("peak %v%% on %v cores: got %v; want %v", tt.peak, tt.cores, got, tt.want)
		}
	}
}
