package monitor

import (
	"testing"
	"time"
)

func TestObserve(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := func(pid int, start uint64, cpu time.Duration, rd, wr uint64) ProcReading {
		return ProcReading{PID: pid, Start: start, CPU: cpu, RSS: 1 << 20, IOKnown: true, ReadBytes: rd, WriteBytes: wr, Threads: 2, FDs: 4}
	}
	tests := []struct {
		name       string
		first      Snapshot
		second     Snapshot
		cpu        float64 // percent of one core over the 2 s between the snapshots
		rd, wr     uint64
		rx, tx     uint64
		diskKnown  bool
		netKnown   bool
		procs, fds int
		rss        uint64 // bytes resident in the second snapshot, every process's added up
		threads    int
	}{
		{
			// 1 s of CPU in 2 s on one process: 50%.
			name:   "one process",
			first:  Snapshot{Procs: []ProcReading{p(10, 5, 3*time.Second, 100, 200)}},
			second: Snapshot{Procs: []ProcReading{p(10, 5, 4*time.Second, 1100, 2200)}},
			cpu:    50, rd: 1000, wr: 2000, diskKnown: true, procs: 1, fds: 4, rss: 1 << 20, threads: 2,
		},
		{
			// A child started after the baseline counts all its CPU: 1 s + 2 s in 2 s = 150%.
			name:   "new child counts from zero",
			first:  Snapshot{Procs: []ProcReading{p(10, 5, 3*time.Second, 0, 0)}},
			second: Snapshot{Procs: []ProcReading{p(10, 5, 4*time.Second, 0, 0), p(11, 9, 2*time.Second, 10, 0)}},
			cpu:    150, rd: 10, diskKnown: true, procs: 2, fds: 8, rss: 2 << 20, threads: 4, // 1 MiB and 2 threads each
		},
		{
			// PID 10 now names another process (another start time): its 0.5 s counts whole,
			// the old one's counters are not subtracted from it.
			name:   "reused pid",
			first:  Snapshot{Procs: []ProcReading{p(10, 5, 30*time.Second, 0, 0)}},
			second: Snapshot{Procs: []ProcReading{p(10, 700, 500*time.Millisecond, 0, 0)}},
			cpu:    25, diskKnown: true, procs: 1, fds: 4, rss: 1 << 20, threads: 2,
		},
		{
			// A process that exited leaves; the survivor's 0.2 s in 2 s = 10%.
			name:   "exited process",
			first:  Snapshot{Procs: []ProcReading{p(10, 5, time.Second, 0, 0), p(11, 6, time.Second, 0, 0)}},
			second: Snapshot{Procs: []ProcReading{p(10, 5, 1200*time.Millisecond, 0, 0)}},
			cpu:    10, diskKnown: true, procs: 1, fds: 4, rss: 1 << 20, threads: 2, // the survivor's alone, not the 2 MiB of before
		},
		{
			// Unreadable I/O and fd counts make the figures absent, not zero.
			name:   "unreadable io and fds",
			first:  Snapshot{Procs: []ProcReading{{PID: 10, CPU: time.Second, FDs: -1}}},
			second: Snapshot{Procs: []ProcReading{{PID: 10, CPU: time.Second, FDs: -1}}},
			procs:  1,
		},
		{
			// Network bytes per namespace; a namespace new in the second snapshot is a baseline.
			name:   "network namespaces",
			first:  Snapshot{Net: []NetReading{{Namespace: 1, Rx: 100, Tx: 50}}},
			second: Snapshot{Net: []NetReading{{Namespace: 1, Rx: 600, Tx: 80}, {Namespace: 2, Rx: 1e9, Tx: 1e9}}},
			rx:     500, tx: 30, diskKnown: true, netKnown: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var s Sampler
			base := s.Observe(t0, tt.first)
			if base.Interval != 0 || base.CPUPercent != 0 || base.DiskRead != 0 || base.NetRx != 0 {
				t.Errorf("got baseline %+v; want no interval, CPU or bytes", base)
			}
			x := s.Observe(t0.Add(2*time.Second), tt.second)
			if x.Interval != 2*time.Second || x.CPUPercent != tt.cpu {
				t.Errorf("got interval %v, CPU %v%%; want 2s, %v%%", x.Interval, x.CPUPercent, tt.cpu)
			}
			if x.DiskKnown != tt.diskKnown || x.DiskRead != tt.rd || x.DiskWrite != tt.wr || x.DiskReadTotal != tt.rd {
				t.Errorf("got disk known %v, read %d (total %d), write %d; want %v, %d, %d", x.DiskKnown, x.DiskRead, x.DiskReadTotal, x.DiskWrite, tt.diskKnown, tt.rd, tt.wr)
			}
			if x.NetKnown != tt.netKnown || x.NetRx != tt.rx || x.NetTx != tt.tx || x.NetTxTotal != tt.tx {
				t.Errorf("got net known %v, rx %d, tx %d (total %d); want %v, %d, %d", x.NetKnown, x.NetRx, x.NetTx, x.NetTxTotal, tt.netKnown, tt.rx, tt.tx)
			}
			if x.RSS != tt.rss || x.Threads != tt.threads {
				t.Errorf("got %d bytes resident, %d threads; want %d, %d", x.RSS, x.Threads, tt.rss, tt.threads)
			}
			if x.Procs != tt.procs || x.FDs != tt.fds || x.FDsKnown != (tt.fds > 0 || tt.procs == 0) {
				t.Errorf("got %d procs, %d fds (known %v); want %d, %d", x.Procs, x.FDs, x.FDsKnown, tt.procs, tt.fds)
			}
		})
	}
}

// Totals add up every interval's bytes.
func TestObserveTotals(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var s Sampler
	var x Sample
	for i, rd := range []uint64{100, 150, 400, 1000} {
		x = s.Observe(t0.Add(time.Duration(i)*time.Second), Snapshot{Procs: []ProcReading{{PID: 1, IOKnown: true, ReadBytes: rd}}})
	}
	if x.DiskRead != 600 || x.DiskReadTotal != 900 {
		t.Errorf("got last interval %d, total %d; want 600, 900", x.DiskRead, x.DiskReadTotal)
	}
}
