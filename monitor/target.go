package monitor

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrUnsupported is returned where a reading needs Linux's /proc or cgroup v2 and the system has
// neither: a cgroup target, Listeners and Descendants outside Linux.
var ErrUnsupported = errors.New("monitor: this reading needs Linux (/proc and cgroup v2)")

// Kind says what a Target watches.
type Kind int

// The kinds of target.
const (
	// KindPIDs watches processes by PID together with all their descendants, found again at each
	// sample so children started later count.
	KindPIDs Kind = iota + 1
	// KindName watches every process whose command name (comm) or executable's base name matches.
	KindName
	// KindCgroup watches a cgroup v2 directory: every process in it, as the kernel accounts them.
	KindCgroup
	// KindSelf watches this process.
	KindSelf
	// KindContainer watches a running container by name or ID: on Linux its cgroup v2 directory
	// when that can be read, otherwise (Docker Desktop on macOS, a cgroup v1 host) the stats of
	// the Docker Engine API, which podman serves as well.
	KindContainer
)

// Target names what a Sampler watches. Build one with PIDs, Name, Cgroup or Self; the zero value is
// invalid (Validate says so). A Target is a plain value, safe to copy and share.
type Target struct {
	Kind   Kind
	PIDs   []int  // KindPIDs: the root processes
	Name   string // KindName: matched against comm and the executable's base name
	Cgroup string // KindCgroup: a cgroup v2 directory, e.g. /sys/fs/cgroup/system.slice/x.service
	// KindContainer: the container's name or ID, as docker ps shows it
	Container string
}

// PIDs watches the given processes and all their descendants.
func PIDs(pids ...int) Target { return Target{Kind: KindPIDs, PIDs: pids} }

// Name watches every process whose comm or executable base name is name.
func Name(name string) Target { return Target{Kind: KindName, Name: name} }

// Cgroup watches a cgroup v2 directory.
func Cgroup(dir string) Target { return Target{Kind: KindCgroup, Cgroup: dir} }

// Self watches this process.
func Self() Target { return Target{Kind: KindSelf} }

// Container watches a running container by name or ID.
func Container(name string) Target { return Target{Kind: KindContainer, Container: name} }

// String names the target for labels and errors: "pid 12,34", "process nginx", "cgroup /sys/...",
// "self", "container web".
func (t Target) String() string {
	switch t.Kind {
	case KindPIDs:
		s := make([]string, len(t.PIDs))
		for i, p := range t.PIDs {
			s[i] = strconv.Itoa(p)
		}
		return "pid " + strings.Join(s, ",")
	case KindName:
		return "process " + t.Name
	case KindCgroup:
		return "cgroup " + t.Cgroup
	case KindSelf:
		return "self"
	case KindContainer:
		return "container " + t.Container
	}
	return fmt.Sprintf("target kind %d", int(t.Kind))
}

// Validate checks the target's shape without looking at the system (NewSampler does that): every
// problem, joined.
func (t Target) Validate() error {
	var errs []error
	switch t.Kind {
	case KindPIDs:
		if len(t.PIDs) == 0 {
			errs = append(errs, errors.New("monitor: pid target: want at least one PID, got none"))
		}
		for _, p := range t.PIDs {
			if p <= 0 {
				errs = append(errs, fmt.Errorf("monitor: pid %d: want a positive process ID", p))
			}
		}
	case KindName:
		if t.Name == "" || strings.ContainsRune(t.Name, '/') {
			errs = append(errs, fmt.Errorf("monitor: process name %q: want a command name without '/', such as nginx", t.Name))
		}
	case KindCgroup:
		if t.Cgroup == "" {
			errs = append(errs, errors.New("monitor: cgroup: want a cgroup v2 directory such as /sys/fs/cgroup/system.slice/x.service, got an empty path"))
		}
	case KindContainer:
		if t.Container == "" || strings.ContainsAny(t.Container, "/ ") {
			errs = append(errs, fmt.Errorf("monitor: container %q: want a container's name or ID, such as web", t.Container))
		}
	case KindSelf:
	default:
		errs = append(errs, fmt.Errorf("monitor: target kind %d: want pids, name, cgroup, container or self", int(t.Kind)))
	}
	return errors.Join(errs...)
}

// walkTree returns roots that are alive and every process below them, breadth first, each once,
// from the children of each process.
func walkTree(children map[int][]int, alive map[int]bool, roots []int) []int {
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

// checkRunning says whether the processes of a PIDs or Name target run now: each PID exists, or
// a read finds a process of the name.
func checkRunning(target Target, exists func(pid int) bool, read func() (Snapshot, error)) error {
	if target.Kind == KindPIDs {
		for _, pid := range target.PIDs {
			if !exists(pid) {
				return fmt.Errorf("monitor: pid %d: want a running process, found none", pid)
			}
		}
		return nil
	}
	snap, err := read()
	if err != nil {
		return err
	}
	if len(snap.Procs) == 0 {
		return fmt.Errorf("monitor: process name %q: want a running process whose command or executable is named so, found none", target.Name)
	}
	return nil
}
