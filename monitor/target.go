package monitor

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrUnsupported is returned by NewSampler on systems without /proc and cgroup v2 (anything but
// Linux).
var ErrUnsupported = errors.New("monitor: resource monitoring needs Linux (/proc and cgroup v2)")

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
)

// Target names what a Sampler watches. Build one with PIDs, Name, Cgroup or Self; the zero value is
// invalid (Validate says so). A Target is a plain value, safe to copy and share.
type Target struct {
	Kind   Kind
	PIDs   []int  // KindPIDs: the root processes
	Name   string // KindName: matched against comm and the executable's base name
	Cgroup string // KindCgroup: a cgroup v2 directory, e.g. /sys/fs/cgroup/system.slice/x.service
}

// PIDs watches the given processes and all their descendants.
func PIDs(pids ...int) Target { return Target{Kind: KindPIDs, PIDs: pids} }

// Name watches every process whose comm or executable base name is name.
func Name(name string) Target { return Target{Kind: KindName, Name: name} }

// Cgroup watches a cgroup v2 directory.
func Cgroup(dir string) Target { return Target{Kind: KindCgroup, Cgroup: dir} }

// Self watches this process.
func Self() Target { return Target{Kind: KindSelf} }

// String names the target for labels and errors: "pid 12,34", "process nginx", "cgroup /sys/...",
// "self".
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
	case KindSelf:
	default:
		errs = append(errs, fmt.Errorf("monitor: target kind %d: want pids, name, cgroup or self", int(t.Kind)))
	}
	return errors.Join(errs...)
}
