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

// Network figures are host-wide only when every namespace read is the host's own; PIDs are those
// read, ascending, and none for a cgroup's own reading (PID 0).
func TestObserveNetHostAndPIDs(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	host := NetReading{Namespace: HostNetNamespace, Host: true, Rx: 10, Tx: 20}
	other := NetReading{Namespace: 0xF0000010, Rx: 5, Tx: 5}
	procs := Snapshot{Procs: []ProcReading{{PID: 30, FDs: 1}, {PID: 7, FDs: 1}}, Net: []NetReading{host}}
	var s Sampler
	x := s.Observe(t0, procs)
	if !x.NetKnown || !x.NetHost || len(x.PIDs) != 2 || x.PIDs[0] != 7 || x.PIDs[1] != 30 {
		t.Errorf("host namespace only: got net known %v, host %v, PIDs %v; want true, true, [7 30]", x.NetKnown, x.NetHost, x.PIDs)
	}
	procs.Net = []NetReading{host, other}
	if x := s.Observe(t0.Add(time.Second), procs); !x.NetKnown || x.NetHost {
		t.Errorf("host and another namespace: got net known %v, host %v; want true, false", x.NetKnown, x.NetHost)
	}
	var cg Sampler
	if x := cg.Observe(t0, Snapshot{Procs: []ProcReading{{PID: 0, FDs: 1}}}); x.PIDs != nil || x.Procs != 1 || x.NetHost {
		t.Errorf("cgroup reading: got PIDs %v, %d procs, net host %v; want none, 1, false", x.PIDs, x.Procs, x.NetHost)
	}
}

// A Series keeps the first MaxPIDChanges changes of the set of PIDs and counts them all; its
// scope is host-wide only when every sample with network figures was.
func TestSeriesPIDChangesAndNetScope(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var s Series
	s.Add(Sample{Time: t0, Procs: 1, PIDs: []int{100}, NetKnown: true, NetHost: true})
	// each sample after: PID 100 stays, a new one replaces the one before: 40 changes
	for i := 1; i <= 40; i++ {
		s.Add(Sample{Time: t0.Add(time.Duration(i) * time.Second), Interval: time.Second, Procs: 2, PIDs: []int{100, 100 + i}, NetKnown: true, NetHost: true})
	}
	sm := s.Summary()
	if sm.PIDChangesTotal != 40 || len(sm.PIDChanges) != MaxPIDChanges || sm.ProcsMin != 1 || sm.ProcsMax != 2 || sm.NetScope != NetHostWide {
		t.Fatalf("got %d changes (%d kept), procs %d..%d, scope %q; want 40 (%d kept), 1..2, host-wide",
			sm.PIDChangesTotal, len(sm.PIDChanges), sm.ProcsMin, sm.ProcsMax, sm.NetScope, MaxPIDChanges)
	}
	first, second := sm.PIDChanges[0], sm.PIDChanges[1]
	if !first.Time.Equal(t0.Add(time.Second)) || len(first.Started) != 1 || first.Started[0] != 101 || first.Exited != nil ||
		len(second.Started) != 1 || second.Started[0] != 102 || len(second.Exited) != 1 || second.Exited[0] != 101 {
		t.Errorf("got changes %+v, %+v; want +101 at 1s, then +102 −101", first, second)
	}
	s.Add(Sample{Time: t0.Add(41 * time.Second), Interval: time.Second, Procs: 2, PIDs: []int{100, 140}, NetKnown: true, NetHost: false})
	if got := s.Summary().NetScope; got != NetNamespaceWide {
		t.Errorf("after a sample outside the host's namespace: got scope %q; want netns-wide", got)
	}
}

// Read by its own sockets, a target's network bytes are differences per socket: a socket opened
// since the last sample counts whole, a closed one counts no more; a failed read leaves that
// sample without figures and makes the next a new baseline, not a jump of every socket's life.
func TestObserveSockets(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	snap := func(known bool, socks ...SockReading) Snapshot {
		return Snapshot{Procs: []ProcReading{{PID: 5, FDs: 1}}, SocketMode: true, SocketsKnown: known, Sockets: socks,
			Net: []NetReading{{Namespace: HostNetNamespace, Host: true, Rx: 1 << 40, Tx: 1 << 40}}} // ignored in socket mode
	}
	steps := []struct {
		snap   Snapshot
		known  bool
		rx, tx uint64
		why    string
	}{
		{snap(true, SockReading{1, 100, 1000}), false, 0, 0, "the baseline"},
		// socket 1: +50 sent, +500 received; socket 2 new: 7 sent, 70 received, all counted
		{snap(true, SockReading{1, 150, 1500}, SockReading{2, 7, 70}), true, 570, 57, "a socket opened since counts whole"},
		// socket 1 closed; socket 2: +3 sent, +30 received
		{snap(true, SockReading{2, 10, 100}), true, 30, 3, "a closed socket counts no more"},
		{snap(false), false, 0, 0, "a failed read"},
		{snap(true, SockReading{2, 20, 200}), false, 0, 0, "the new baseline after it"},
		{snap(true, SockReading{2, 25, 260}), true, 60, 5, "differences again"},
	}
	var s Sampler
	for i, st := range steps {
		x := s.Observe(t0.Add(time.Duration(i)*time.Second), st.snap)
		if !x.NetOwn || x.NetHost || x.NetKnown != st.known || x.NetRx != st.rx || x.NetTx != st.tx {
			t.Errorf("%s: got own %v, host %v, known %v, in %d, out %d; want own, not host, known %v, in %d, out %d",
				st.why, x.NetOwn, x.NetHost, x.NetKnown, x.NetRx, x.NetTx, st.known, st.rx, st.tx)
		}
	}
}
