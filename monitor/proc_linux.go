//go:build linux

package monitor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/procfs"
)

// NewSampler checks that target exists now — the PIDs are running, the name matches a process, the
// directory is a cgroup v2 one — and returns a Sampler that reads it from /proc and the cgroup
// files.
func NewSampler(target Target) (*Sampler, error) {
	if err := target.Validate(); err != nil {
		return nil, err
	}
	pfs, err := procfs.NewFS(procfs.DefaultMountPoint)
	if err != nil {
		return nil, fmt.Errorf("monitor: %w", err)
	}
	r := &reader{fs: pfs, target: target}
	switch target.Kind {
	case KindPIDs:
		for _, pid := range target.PIDs {
			if _, err := os.Stat(filepath.Join(procfs.DefaultMountPoint, fmt.Sprint(pid))); err != nil {
				return nil, fmt.Errorf("monitor: pid %d: want a running process, found none", pid)
			}
		}
	case KindName:
		snap, err := r.read()
		if err != nil {
			return nil, err
		}
		if len(snap.Procs) == 0 {
			return nil, fmt.Errorf("monitor: process name %q: want a running process whose command or executable is named so, found none", target.Name)
		}
	case KindCgroup:
		if err := checkCgroupDir(target.Cgroup); err != nil {
			return nil, err
		}
	case KindSelf:
		r.self = os.Getpid()
	}
	return &Sampler{target: target, read: r.read}, nil
}

// reader reads one target from /proc and, for a cgroup, its directory.
type reader struct {
	fs     procfs.FS
	target Target
	self   int
}

func (r *reader) read() (Snapshot, error) {
	var pids []int
	switch r.target.Kind {
	case KindSelf:
		pids = []int{r.self}
	case KindPIDs, KindName:
		procs, err := r.fs.AllProcs()
		if err != nil {
			return Snapshot{}, fmt.Errorf("monitor: listing processes: %w", err)
		}
		if r.target.Kind == KindPIDs {
			pids = descendants(procs, r.target.PIDs)
		} else {
			pids = byName(procs, r.target.Name)
		}
	case KindCgroup:
		return r.readCgroup()
	}
	var snap Snapshot
	for _, pid := range pids {
		if p, ok := r.readProc(pid); ok {
			snap.Procs = append(snap.Procs, p)
		}
	}
	snap.Net = r.readNet(pids)
	if r.target.Kind == KindSelf {
		h, err := readHost(r.fs)
		if err != nil {
			return Snapshot{}, err
		}
		snap.Host = h
	}
	return snap, nil
}

// descendants returns roots that still run and every process below them, from the parent links in
// /proc/PID/stat read now.
func descendants(procs procfs.Procs, roots []int) []int {
	children := make(map[int][]int, len(procs))
	alive := make(map[int]bool, len(procs))
	for _, p := range procs {
		st, err := p.Stat()
		if err != nil {
			continue // exited while listing
		}
		alive[p.PID] = true
		children[st.PPID] = append(children[st.PPID], p.PID)
	}
	var out []int
	seen := make(map[int]bool)
	queue := make([]int, 0, len(roots))
	for _, r := range roots {
		if alive[r] {
			queue = append(queue, r)
		}
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		out = append(out, pid)
		queue = append(queue, children[pid]...)
	}
	return out
}

// byName returns the processes whose comm (the kernel's name, at most 15 bytes) or executable base
// name is name; a name longer than comm's limit matches on its first 15 bytes as well.
func byName(procs procfs.Procs, name string) []int {
	short := name
	if len(short) > 15 {
		short = short[:15]
	}
	var out []int
	for _, p := range procs {
		if comm, err := p.Comm(); err == nil && (comm == name || comm == short) {
			out = append(out, p.PID)
			continue
		}
		if exe, err := p.Executable(); err == nil && filepath.Base(exe) == name {
			out = append(out, p.PID)
		}
	}
	return out
}

// readProc reads one process; ok is false if it exited meanwhile.
func (r *reader) readProc(pid int) (ProcReading, bool) {
	p, err := r.fs.Proc(pid)
	if err != nil {
		return ProcReading{}, false
	}
	st, err := p.Stat()
	if err != nil {
		return ProcReading{}, false
	}
	out := ProcReading{
		PID:     pid,
		Start:   st.Starttime,
		CPU:     time.Duration(st.CPUTime() * float64(time.Second)),
		RSS:     uint64(st.ResidentMemory()),
		Threads: st.NumThreads,
		FDs:     -1,
	}
	if io, err := p.IO(); err == nil {
		out.IOKnown, out.ReadBytes, out.WriteBytes = true, io.ReadBytes, io.WriteBytes
	}
	if n, err := p.FileDescriptorsLen(); err == nil {
		out.FDs = n
	}
	return out, true
}

// readNet reads /proc/PID/net/dev once per network namespace among pids.
func (r *reader) readNet(pids []int) []NetReading {
	var out []NetReading
	seen := make(map[uint64]bool)
	for _, pid := range pids {
		p, err := r.fs.Proc(pid)
		if err != nil {
			continue
		}
		ns, err := p.Namespaces()
		if err != nil {
			continue
		}
		n, ok := ns["net"]
		if !ok || seen[uint64(n.Inode)] {
			continue
		}
		dev, err := p.NetDev()
		if err != nil {
			continue
		}
		seen[uint64(n.Inode)] = true
		t := dev.Total()
		out = append(out, NetReading{Namespace: uint64(n.Inode), Rx: t.RxBytes, Tx: t.TxBytes})
	}
	return out
}

// readCgroup reads the cgroup's own counters (cpu.stat, memory.current, io.stat, pids.current) as
// one ProcReading, and its member processes (cgroup.procs) for open files and network bytes.
func (r *reader) readCgroup() (Snapshot, error) {
	dir := r.target.Cgroup
	cg, err := readCgroupFiles(dir)
	if err != nil {
		return Snapshot{}, err
	}
	pr := ProcReading{
		CPU:     cg.CPU,
		RSS:     cg.Memory,
		IOKnown: cg.IOKnown, ReadBytes: cg.ReadBytes, WriteBytes: cg.WriteBytes,
		Threads: cg.Pids,
	}
	members, err := readCgroupProcs(dir)
	if err != nil {
		return Snapshot{}, err
	}
	var memRSS uint64
	var threads int
	for _, pid := range members {
		p, ok := r.readProc(pid)
		if !ok {
			continue
		}
		memRSS += p.RSS
		threads += p.Threads
		if p.FDs < 0 || pr.FDs < 0 {
			pr.FDs = -1
		} else {
			pr.FDs += p.FDs
		}
	}
	if !cg.MemoryKnown {
		pr.RSS = memRSS // the root cgroup has no memory.current
	}
	if !cg.PidsKnown {
		pr.Threads = threads // the pids controller is not enabled here
	}
	return Snapshot{Procs: []ProcReading{pr}, Net: r.readNet(members)}, nil
}

// checkCgroupDir says whether dir is a cgroup v2 directory: a directory holding cgroup.controllers
// (which cgroup v1 lacks) and cpu.stat.
func checkCgroupDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return fmt.Errorf("monitor: cgroup %s: want a cgroup v2 directory (such as /sys/fs/cgroup/system.slice/x.service), found no directory", dir)
	}
	for _, f := range []string{"cgroup.controllers", "cpu.stat"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("monitor: cgroup %s: want a cgroup v2 directory, but it has no %s (cgroup v1, or not a cgroup)", dir, f)
			}
			return fmt.Errorf("monitor: cgroup %s: %w", dir, err)
		}
	}
	return nil
}
