//go:build linux

package monitor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/prometheus/procfs"
)

// NewSampler checks that target exists now — the PIDs are running, the name matches a process, the
// directory is a cgroup v2 one, the container runs — and returns a Sampler that reads it from /proc
// and the cgroup files; a container whose cgroup v2 directory cannot be read here (a cgroup v1
// host, a daemon in another PID namespace or on another machine) through the stats of the Docker
// Engine API that answered for it (Sampler.Label and Route say which).
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
	case KindPIDs, KindName:
		exists := func(pid int) bool {
			_, err := os.Stat(filepath.Join(procfs.DefaultMountPoint, fmt.Sprint(pid)))
			return err == nil
		}
		if err := checkRunning(target, exists, r.read); err != nil {
			return nil, err
		}
	case KindCgroup:
		if err := checkCgroupDir(target.Cgroup); err != nil {
			return nil, err
		}
	case KindSelf:
		r.self = os.Getpid()
	case KindContainer:
		ctx, cancel := context.WithTimeout(context.Background(), 3*dockerTimeout)
		defer cancel()
		dir, c, err := resolveContainer(ctx, target.Container)
		if err != nil {
			return nil, err
		}
		if c != nil {
			return newContainerSampler(target, c), nil
		}
		r.target = Cgroup(dir) // the cgroup is read as such, under the container's name
		r.sockets = r.ownSocketsReadable()
		return &Sampler{target: target, read: r.read, route: "cgroup, " + dir}, nil
	}
	r.sockets = r.ownSocketsReadable()
	return &Sampler{target: target, read: r.read}, nil
}

// reader reads one target from /proc and, for a cgroup, its directory.
type reader struct {
	fs     procfs.FS
	target Target
	self   int
	// sockets: the target's network figures are read from its own TCP sockets (ownSocketsReadable)
	sockets bool
	netns   string // this process's network namespace, as /proc/self/ns/net names it
}

// ownSocketsReadable says whether the target's own TCP sockets can be read: the kernel answers
// sock_diag (or, for this process alone, its own descriptors can be read), and every process of the target now shares this process's network namespace (the
// only one sock_diag shows) and lets its descriptors be read. Otherwise its network figures are
// its namespaces'. The choice holds for the whole run, so that a figure never changes meaning
// midway.
func (r *reader) ownSocketsReadable() bool {
	ns, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return false
	}
	r.netns = ns
	pids, err := r.pids()
	if err != nil || len(pids) == 0 {
		return false
	}
	// this process reads its own sockets on its descriptors (readSockets), others by the dump
	if len(pids) == 1 && pids[0] == os.Getpid() {
		_, err = ownTCPSockets()
	} else {
		_, err = tcpSockets()
	}
	if err != nil {
		return false
	}
	for _, pid := range pids {
		_, err := socketInodes(pid)
		if errors.Is(err, fs.ErrNotExist) {
			continue // gone: nothing of it to read
		}
		switch ns := r.netnsOf(pid); {
		case err != nil || ns == netnsOther:
			return false
		case ns == netnsGone:
			continue // a zombie (its descriptors and namespace gone), or exited meanwhile
		}
	}
	return true
}

// netns says whether process pid is in the network namespace r reads sockets in.
type netns int

const (
	netnsSame  netns = iota
	netnsOther       // another namespace, or unreadable
	netnsGone        // the process exited (or is a zombie, whose namespace is gone)
)

func (r *reader) netnsOf(pid int) netns {
	ns, err := os.Readlink(filepath.Join(procfs.DefaultMountPoint, strconv.Itoa(pid), "ns", "net"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return netnsGone
	case err != nil || ns != r.netns:
		return netnsOther
	}
	return netnsSame
}

// readSockets reads the TCP sockets the processes pids hold open, each socket once however many
// processes share it; known is false when some process now in the target could not be read (it
// moved to another network namespace, its descriptors became unreadable) or sock_diag failed.
//
// The sockets of this very process are read with getsockopt on its own descriptors (ownTCPSockets),
// cheaper than sock_diag's dump, whose cost follows every socket of the namespace (the kernel
// walks its whole table of connections): the generator watching itself does not dump at all.
func (r *reader) readSockets(pids []int) (socks []SockReading, known bool) {
	var all map[uint64]SockReading
	seen := make(map[uint64]bool)
	for _, pid := range pids {
		if pid == os.Getpid() {
			own, err := ownTCPSockets()
			if err != nil {
				return nil, false // not read: no figure, rather than none (and a burst after)
			}
			for _, k := range own {
				if !seen[k.Inode] {
					seen[k.Inode] = true
					socks = append(socks, k)
				}
			}
			continue
		}
		if all == nil {
			var err error
			if all, err = tcpSockets(); err != nil {
				return nil, false
			}
		}
		inodes, err := socketInodes(pid)
		if errors.Is(err, fs.ErrNotExist) {
			continue // exited meanwhile
		}
		switch ns := r.netnsOf(pid); {
		case err != nil || ns == netnsOther:
			return nil, false
		case ns == netnsGone:
			continue // a zombie (its descriptors and namespace gone), or exited between the reads
		}
		for _, ino := range inodes {
			if k, ok := all[ino]; ok && !seen[ino] {
				seen[ino] = true
				socks = append(socks, k)
			}
		}
	}
	return socks, true
}

// netOf adds to snap the network figures of the processes pids: their own sockets', or their
// namespaces'.
func (r *reader) netOf(snap *Snapshot, pids []int) {
	if r.sockets {
		snap.SocketMode = true
		snap.Sockets, snap.SocketsKnown = r.readSockets(pids)
		return
	}
	snap.Net = r.readNet(pids)
}

// pids returns the processes of the target now: for a cgroup its members.
func (r *reader) pids() ([]int, error) {
	switch r.target.Kind {
	case KindSelf:
		return []int{r.self}, nil
	case KindPIDs, KindName:
		procs, err := r.fs.AllProcs()
		if err != nil {
			return nil, fmt.Errorf("monitor: listing processes: %w", err)
		}
		if r.target.Kind == KindPIDs {
			return descendants(procs, r.target.PIDs), nil
		}
		return byName(procs, r.target.Name), nil
	case KindCgroup:
		return readCgroupProcs(r.target.Cgroup)
	}
	return nil, nil
}

func (r *reader) read() (Snapshot, error) {
	if r.target.Kind == KindCgroup {
		return r.readCgroup()
	}
	pids, err := r.pids()
	if err != nil {
		return Snapshot{}, err
	}
	var snap Snapshot
	for _, pid := range pids {
		if p, ok := r.readProc(pid); ok {
			snap.Procs = append(snap.Procs, p)
		}
	}
	r.netOf(&snap, pids)
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
	return walkTree(children, alive, roots)
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

// readNet reads /proc/PID/net/dev once per network namespace among pids: the namespace's
// interfaces, every process in it counted. It is what is left when the target's own sockets cannot
// be read (ownSocketsReadable): Linux keeps no byte counters per process (rchar and wchar of
// /proc/PID/io mix sockets with files and pipes), and the reports say the figure is namespace- or
// host-wide.
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
		out = append(out, NetReading{Namespace: uint64(n.Inode), Host: n.Inode == HostNetNamespace, Rx: t.RxBytes, Tx: t.TxBytes})
	}
	return out
}

// readCgroup reads the cgroup's own counters (cpu.stat, memory.current, io.stat, pids.current) as
// one ProcReading, and its member processes (cgroup.procs) for open files and network bytes.
// Members that exited meanwhile are skipped.
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
	snap := Snapshot{Procs: []ProcReading{pr}}
	r.netOf(&snap, members)
	return snap, nil
}
