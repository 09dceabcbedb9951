package monitor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ProcReading is what one read of one process says: cumulative counters since it started and
// current levels. For a cgroup target a single ProcReading with PID 0 carries the cgroup's own
// counters.
type ProcReading struct {
	PID   int
	Start uint64        // start time in clock ticks after boot; with PID, names one process across samples
	CPU   time.Duration // cumulative user + system time
	RSS   uint64        // resident bytes now
	// IOKnown is false when the I/O counters could not be read (another user's process without
	// permission); ReadBytes and WriteBytes are then meaningless.
	IOKnown    bool
	ReadBytes  uint64 // cumulative bytes read from storage
	WriteBytes uint64 // cumulative bytes written to storage
	Threads    int
	FDs        int // open file descriptors; -1 when they could not be counted
}

// NetReading is one network namespace's cumulative byte counters, summed over its interfaces
// (loopback included, since a benchmark on one machine travels over it). They count every process
// in the namespace, not only the target's: Linux keeps no byte counters per process.
type NetReading struct {
	Namespace uint64 // inode of the namespace, to tell several apart
	// Host is true when the namespace is the machine's own (the initial one): the bytes are then
	// those of the whole host.
	Host   bool
	Rx, Tx uint64
}

// HostNetNamespace is the inode of the initial network namespace, fixed since Linux 6.18
// (PROC_NET_INIT_INO). Earlier kernels number it like any other namespace, from 0xF0000000 up, so
// no namespace of theirs is mistaken for it: the host's own is then merely "netns-wide".
const HostNetNamespace = 0xEFFFFFF9

// The scopes of the network figures, as Summary.NetScope gives them.
const (
	// NetOwnSockets: the TCP payload of the sockets the target's processes held open at each
	// sample, sent and received — its own traffic. Bytes of a connection opened and closed between
	// two samples are not seen.
	NetOwnSockets = "own TCP sockets"
	// NetHostWide: every namespace read was the host's own; the bytes are the whole machine's.
	NetHostWide = "host-wide"
	// NetNamespaceWide: the bytes are those of the target's network namespace(s), every process
	// in them counted (the host's own namespace on a kernel that does not say which that is).
	NetNamespaceWide = "netns-wide"
	// NetMixed: some samples had the target's own sockets, others its namespace (a Series fed
	// by hand with both).
	NetMixed = "own TCP sockets and netns-wide, mixed"
)

// SockReading is one TCP socket's cumulative payload byte counters: sent (retransmissions
// included) and received, as the kernel keeps them per socket (tcp_info).
type SockReading struct {
	Inode          uint64 // names the socket across samples
	Sent, Received uint64
}

// Snapshot is everything one read of a target says. Its network figures are either its own TCP
// sockets' (Sockets, when SocketMode) or its network namespaces' (Net).
type Snapshot struct {
	Procs []ProcReading
	Net   []NetReading // one per distinct network namespace of the processes read; nil if unreadable
	// Host is what the CPUs the process may run on did, for the generator watching itself; nil
	// for other targets.
	Host *HostReading
	// SocketMode says the target's network figures are those of its own TCP sockets: Sockets are
	// the ones its processes held open, each once; SocketsKnown is false when some process's
	// sockets could not be read this time.
	SocketMode   bool
	SocketsKnown bool
	Sockets      []SockReading
}

// Sample is the figures of one interval for one target, summed over its processes. The first
// Sample of a Sampler has Interval 0: it is the baseline, and its CPU and per-interval byte counts
// are zero.
type Sample struct {
	Time     time.Time     `json:"time"`
	Interval time.Duration `json:"interval_ns"` // since the previous sample; 0 for the first
	Procs    int           `json:"procs"`       // processes counted (1 for a cgroup read as a whole)
	// PIDs are the processes read, ascending; nil for a cgroup read as a whole.
	PIDs []int `json:"pids,omitempty"`
	// CPUPercent is CPU time used during the interval over the interval's length, in percent of
	// one core: 200 means two cores busy.
	CPUPercent float64 `json:"cpu_percent"`
	RSS        uint64  `json:"rss_bytes"`
	Threads    int     `json:"threads"`
	FDsKnown   bool    `json:"fds_known"` // false when some process's descriptors could not be counted
	FDs        int     `json:"fds"`
	// DiskKnown is false when some process's I/O counters could not be read: the disk figures are
	// then absent, not zero.
	DiskKnown      bool   `json:"disk_known"`
	DiskRead       uint64 `json:"disk_read_bytes"`        // during the interval
	DiskWrite      uint64 `json:"disk_write_bytes"`       // during the interval
	DiskReadTotal  uint64 `json:"disk_read_total_bytes"`  // since the first sample
	DiskWriteTotal uint64 `json:"disk_write_total_bytes"` // since the first sample
	// NetOwn is true when the network figures are the target's own: the TCP payload of the sockets
	// its processes held open (Snapshot.SocketMode). Otherwise they are its network namespaces',
	// every process in them counted, and NetHost is true when every namespace read is the host's
	// own (NetReading.Host): the figures are then the machine's. NetKnown is false when the
	// figures could not be read, or this sample is the first of a new baseline.
	NetKnown   bool   `json:"net_known"`
	NetOwn     bool   `json:"net_own"`
	NetHost    bool   `json:"net_host"`
	NetRx      uint64 `json:"net_rx_bytes"` // during the interval
	NetTx      uint64 `json:"net_tx_bytes"`
	NetRxTotal uint64 `json:"net_rx_total_bytes"` // since the first sample
	NetTxTotal uint64 `json:"net_tx_total_bytes"`
	// Host is, for a snapshot with a host reading, what else ran on the target's CPUs.
	Host *HostSample `json:"host,omitempty"`
}

type procKey struct {
	pid   int
	start uint64
}

// Sampler turns readings of one target into Samples. Build it with NewSampler, which checks the
// target exists, or use the zero value and feed Observe with readings made elsewhere. It is not
// safe for concurrent use: one goroutine drives it, each interval.
type Sampler struct {
	target Target
	read   func() (Snapshot, error)
	route  string // how a container is read, for Label

	started  bool
	prevTime time.Time
	prev     map[procKey]ProcReading
	prevNet  map[uint64]NetReading
	prevHost *HostReading
	prevSock map[uint64]SockReading // nil: no baseline of the sockets (the first read, or one failed)
	total    [4]uint64              // disk read, disk write, net rx, net tx since the first sample
}

// Target returns what the sampler watches.
func (s *Sampler) Target() Target { return s.target }

// Label names what the sampler watches as Target.String does and, for a container, which route
// reads it, for a report's tables: "container web (cgroup)" or "container web (Docker API
// stats)". Route says more.
func (s *Sampler) Label() string {
	if s.route == "" {
		return s.target.String()
	}
	short, _, _ := strings.Cut(s.route, ",")
	return s.target.String() + " (" + short + ")"
}

// Route says how a container is read, with the details: "cgroup, /sys/fs/cgroup/system.slice/
// docker-5b36….scope" or "Docker API stats, unix:///var/run/docker.sock, id 5b369fe49c91"; empty
// for other targets.
func (s *Sampler) Route() string { return s.route }

// Sample reads the target now and returns the figures since the previous call. A target whose
// processes have all exited gives a Sample with Procs 0, not an error; errors are reading failures
// of the system itself.
func (s *Sampler) Sample(now time.Time) (Sample, error) {
	if s.read == nil {
		return Sample{}, errors.New("monitor: Sampler not made by NewSampler has nothing to read; use Observe")
	}
	snap, err := s.read()
	if err != nil {
		return Sample{}, err
	}
	return s.Observe(now, snap), nil
}

// Observe folds one snapshot taken at now into a Sample. It is pure arithmetic on its inputs and
// the previous snapshot:
//   - CPU % = Σ over processes of (CPU time now − CPU time at the previous sample) / (now − then)
//     × 100. A process seen for the first time after the first sample started since, so all its
//     CPU time counts; a process that exited during the interval loses its last partial interval.
//   - Disk bytes: the same per-process differences; absent (DiskKnown false) if any process's
//     counters were unreadable.
//   - Network bytes: differences per network namespace; a namespace seen for the first time is a
//     new baseline. For a target read by its own sockets, differences per socket (observeSockets).
//   - RSS, threads and FDs: the levels now, summed.
//   - Host: the CPU the target's CPUs spent busy, less the target's own, and their steal.
//   - PIDs: the processes read now; NetHost whether every namespace read is the host's.
func (s *Sampler) Observe(now time.Time, snap Snapshot) Sample {
	out := Sample{Time: now, Procs: len(snap.Procs), DiskKnown: true, FDsKnown: true, PIDs: pidsOf(snap.Procs)}
	if s.started {
		out.Interval = now.Sub(s.prevTime)
	}
	cur := make(map[procKey]ProcReading, len(snap.Procs))
	var cpu time.Duration
	for _, p := range snap.Procs {
		out.RSS += p.RSS
		out.Threads += p.Threads
		if p.FDs < 0 {
			out.FDsKnown = false
		} else {
			out.FDs += p.FDs
		}
		if !p.IOKnown {
			out.DiskKnown = false
		}
		k := procKey{p.PID, p.Start}
		cur[k] = p
		if !s.started {
			continue
		}
		old, seen := s.prev[k]
		if !seen {
			old = ProcReading{IOKnown: true}
		}
		cpu += diffDur(p.CPU, old.CPU)
		if p.IOKnown && old.IOKnown {
			out.DiskRead += diff(p.ReadBytes, old.ReadBytes)
			out.DiskWrite += diff(p.WriteBytes, old.WriteBytes)
		}
	}
	var curNet map[uint64]NetReading
	if snap.SocketMode {
		s.observeSockets(&out, snap)
	} else {
		curNet = make(map[uint64]NetReading, len(snap.Net))
		out.NetKnown = len(snap.Net) > 0
		out.NetHost = out.NetKnown
		for _, n := range snap.Net {
			curNet[n.Namespace] = n
			out.NetHost = out.NetHost && n.Host
			if old, ok := s.prevNet[n.Namespace]; ok && s.started {
				out.NetRx += diff(n.Rx, old.Rx)
				out.NetTx += diff(n.Tx, old.Tx)
			}
		}
	}
	if out.Interval > 0 {
		out.CPUPercent = 100 * cpu.Seconds() / out.Interval.Seconds()
	}
	if !out.DiskKnown {
		out.DiskRead, out.DiskWrite = 0, 0
	}
	s.total[0] += out.DiskRead
	s.total[1] += out.DiskWrite
	s.total[2] += out.NetRx
	s.total[3] += out.NetTx
	out.DiskReadTotal, out.DiskWriteTotal = s.total[0], s.total[1]
	out.NetRxTotal, out.NetTxTotal = s.total[2], s.total[3]
	if s.started {
		observeHost(&out, snap.Host, s.prevHost)
	} else {
		observeHost(&out, snap.Host, nil)
	}
	s.prev, s.prevNet, s.prevHost, s.prevTime, s.started = cur, curNet, snap.Host, now, true
	return out
}

// observeSockets sets the network figures of out from the target's own sockets: per socket, the
// bytes now less those at the previous sample; a socket first seen after a baseline opened since,
// so all its bytes count. A socket closed during the interval loses the bytes it moved since the
// previous sample. The first read, and the first after one that failed, is a new baseline with no
// figures.
func (s *Sampler) observeSockets(out *Sample, snap Snapshot) {
	out.NetOwn = true
	if !snap.SocketsKnown {
		s.prevSock = nil
		return
	}
	cur := make(map[uint64]SockReading, len(snap.Sockets))
	for _, k := range snap.Sockets {
		cur[k.Inode] = k
		if s.prevSock != nil {
			old := s.prevSock[k.Inode] // zero for a socket opened since
			out.NetRx += diff(k.Received, old.Received)
			out.NetTx += diff(k.Sent, old.Sent)
		}
	}
	out.NetKnown = s.prevSock != nil
	s.prevSock = cur
}

// pidsOf returns the PIDs of procs, ascending; nil when there are none or the reading is a
// cgroup's (PID 0).
func pidsOf(procs []ProcReading) []int {
	var out []int
	for _, p := range procs {
		if p.PID > 0 {
			out = append(out, p.PID)
		}
	}
	slices.Sort(out)
	return out
}

// diff is a counter's increase; a counter that went back (a reused PID that slipped through, a
// reset) counts as zero rather than wrapping.
func diff(now, then uint64) uint64 {
	if now < then {
		return 0
	}
	return now - then
}

func diffDur(now, then time.Duration) time.Duration {
	if now < then {
		return 0
	}
	return now - then
}

// Run samples the target at once (the baseline) and then every interval until ctx is done,
// handing each Sample to fn on the calling goroutine. It returns nil when ctx ends the run, or the
// first reading error.
func (s *Sampler) Run(ctx context.Context, interval time.Duration, fn func(Sample)) error {
	if interval <= 0 {
		return fmt.Errorf("monitor: interval %v: want a positive duration such as 1s", interval)
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	now := time.Now()
	for {
		x, err := s.Sample(now)
		if err != nil {
			return err
		}
		fn(x)
		if ctx.Err() != nil {
			return nil // ended by fn, or while sampling: no tick that is due as well is taken
		}
		select {
		case <-ctx.Done():
			return nil
		case now = <-t.C:
		}
	}
}
