package monitor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	gnet "github.com/shirou/gopsutil/v4/net"
	"github.com/shirou/gopsutil/v4/process"
)

// The reading of processes outside Linux, through gopsutil (macOS, Windows, FreeBSD). Linux keeps
// its /proc reader (proc_linux.go), cheaper and able to read a process's own sockets; this one is
// built there too, so that its tests compare the two on the same process.

// gopsDiskBytes says whether gopsutil's I/O counters of a process are bytes read from and written
// to storage on goos: on Windows they count every I/O (files, pipes, network) and on FreeBSD they
// are block counts, so the disk figures are absent there.
func gopsDiskBytes(goos string) bool { return goos == "linux" || goos == "darwin" }

// gopsFDs says whether gopsutil's NumFDs counts open files on goos: on Windows it counts every
// handle (threads, events, keys...), and FreeBSD does not implement it.
func gopsFDs(goos string) bool { return goos != "windows" && goos != "freebsd" }

// gopsReader reads one target through gopsutil.
type gopsReader struct {
	target Target
	self   int
}

// newGopsSampler checks that target exists now and returns a Sampler that reads it through
// gopsutil; a cgroup needs Linux, and a container is read by newContainerSampler.
func newGopsSampler(target Target) (*Sampler, error) {
	r := &gopsReader{target: target}
	switch target.Kind {
	case KindPIDs, KindName:
		exists := func(pid int) bool {
			ok, err := process.PidExists(int32(pid))
			return err == nil && ok
		}
		if err := checkRunning(target, exists, r.read); err != nil {
			return nil, err
		}
	case KindSelf:
		r.self = os.Getpid()
	case KindCgroup:
		return nil, fmt.Errorf("monitor: cgroup %s: %w; watch the processes by PID or name, or a container", target.Cgroup, ErrUnsupported)
	default:
		return nil, fmt.Errorf("monitor: %s: not a process target", target)
	}
	return &Sampler{target: target, read: r.read}, nil
}

func (r *gopsReader) read() (Snapshot, error) {
	ctx := context.Background()
	var pids []int
	switch r.target.Kind {
	case KindSelf:
		pids = []int{r.self}
	case KindPIDs, KindName:
		procs, err := process.ProcessesWithContext(ctx)
		if err != nil {
			return Snapshot{}, fmt.Errorf("monitor: listing processes: %w", err)
		}
		if r.target.Kind == KindPIDs {
			pids = gopsDescendants(ctx, procs, r.target.PIDs)
		} else {
			pids = gopsByName(ctx, procs, r.target.Name)
		}
	}
	var snap Snapshot
	for _, pid := range pids {
		if p, ok := gopsReadProc(ctx, pid, runtime.GOOS); ok {
			snap.Procs = append(snap.Procs, p)
		}
	}
	// No system but Linux keeps byte counters per process or per socket that can be read
	// without privileges: the machine's interfaces, which NetReading.Host marks host-wide.
	if io, err := gnet.IOCountersWithContext(ctx, false); err == nil && len(io) == 1 {
		snap.Net = []NetReading{{Host: true, Rx: io[0].BytesRecv, Tx: io[0].BytesSent}}
	}
	return snap, nil
}

// gopsDescendants returns roots that still run and every process below them, from the parent of
// each process now.
func gopsDescendants(ctx context.Context, procs []*process.Process, roots []int) []int {
	children := make(map[int][]int, len(procs))
	alive := make(map[int]bool, len(procs))
	for _, p := range procs {
		ppid, err := p.PpidWithContext(ctx)
		if err != nil {
			continue // exited while listing
		}
		alive[int(p.Pid)] = true
		if int(ppid) != int(p.Pid) { // Windows' idle process is its own parent
			children[int(ppid)] = append(children[int(ppid)], int(p.Pid))
		}
	}
	return walkTree(children, alive, roots)
}

// gopsByName returns the processes whose name or executable's base name is name, either with
// Windows' ".exe" left off.
func gopsByName(ctx context.Context, procs []*process.Process, name string) []int {
	is := func(s string) bool { return s == name || strings.TrimSuffix(s, ".exe") == name }
	var out []int
	for _, p := range procs {
		if n, err := p.NameWithContext(ctx); err == nil && is(n) {
			out = append(out, int(p.Pid))
			continue
		}
		if exe, err := p.ExeWithContext(ctx); err == nil && exe != "" && is(filepath.Base(exe)) {
			out = append(out, int(p.Pid))
		}
	}
	return out
}

// gopsReadProc reads one process through gopsutil as the system goos allows (gopsDiskBytes,
// gopsFDs); ok is false if it exited meanwhile. Start is its creation time in milliseconds since
// the epoch, which with the PID names it across samples.
func gopsReadProc(ctx context.Context, pid int, goos string) (ProcReading, bool) {
	p, err := process.NewProcessWithContext(ctx, int32(pid))
	if err != nil {
		return ProcReading{}, false
	}
	t, err := p.TimesWithContext(ctx)
	if err != nil {
		return ProcReading{}, false
	}
	out := ProcReading{PID: pid, FDs: -1,
		CPU: time.Duration((t.User + t.System) * float64(time.Second))}
	if ms, err := p.CreateTimeWithContext(ctx); err == nil {
		out.Start = uint64(ms)
	}
	if m, err := p.MemoryInfoWithContext(ctx); err == nil {
		out.RSS = m.RSS
	}
	if n, err := p.NumThreadsWithContext(ctx); err == nil {
		out.Threads = int(n)
	}
	if gopsDiskBytes(goos) {
		if io, err := p.IOCountersWithContext(ctx); err == nil {
			// the Disk ones: ReadBytes and WriteBytes count every read and write on Linux
			// (rchar, wchar) and are zero on macOS
			out.IOKnown, out.ReadBytes, out.WriteBytes = true, io.DiskReadBytes, io.DiskWriteBytes
		}
	}
	if gopsFDs(goos) {
		if n, err := p.NumFDsWithContext(ctx); err == nil {
			out.FDs = int(n)
		}
	}
	return out, true
}
