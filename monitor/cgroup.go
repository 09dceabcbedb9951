package monitor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// cgroupReading is what a cgroup v2 directory's own files say.
type cgroupReading struct {
	CPU                   time.Duration // cpu.stat usage_usec
	MemoryKnown           bool
	Memory                uint64 // memory.current
	IOKnown               bool
	ReadBytes, WriteBytes uint64 // io.stat rbytes, wbytes summed over devices
	PidsKnown             bool
	Pids                  int // pids.current: tasks, that is threads
}

// readCgroupFiles reads cpu.stat (required) and memory.current, io.stat and pids.current (each
// optional: a controller may not be enabled for this cgroup).
func readCgroupFiles(dir string) (cgroupReading, error) {
	var out cgroupReading
	b, err := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return out, fmt.Errorf("monitor: cgroup %s: %w", dir, err)
	}
	usec, err := parseCPUStat(string(b))
	if err != nil {
		return out, fmt.Errorf("monitor: cgroup %s: cpu.stat: %w", dir, err)
	}
	out.CPU = time.Duration(usec) * time.Microsecond
	optional := func(name string, parse func(string) error) (bool, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err == nil {
			err = parse(string(b))
		}
		if err != nil {
			return false, fmt.Errorf("monitor: cgroup %s: %s: %w", dir, name, err)
		}
		return true, nil
	}
	if out.MemoryKnown, err = optional("memory.current", func(s string) (err error) {
		out.Memory, err = parseSingleValue(s)
		return err
	}); err != nil {
		return out, err
	}
	if out.IOKnown, err = optional("io.stat", func(s string) (err error) {
		out.ReadBytes, out.WriteBytes, err = parseIOStat(s)
		return err
	}); err != nil {
		return out, err
	}
	if out.PidsKnown, err = optional("pids.current", func(s string) error {
		n, err := parseSingleValue(s)
		out.Pids = int(n)
		return err
	}); err != nil {
		return out, err
	}
	return out, nil
}

// readCgroupProcs reads cgroup.procs: the PIDs of the cgroup's member processes.
func readCgroupProcs(dir string) ([]int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil, fmt.Errorf("monitor: cgroup %s: %w", dir, err)
	}
	pids, err := parseCgroupProcs(string(b))
	if err != nil {
		return nil, fmt.Errorf("monitor: cgroup %s: cgroup.procs: %w", dir, err)
	}
	return pids, nil
}

// parseCPUStat returns usage_usec from a cgroup v2 cpu.stat, a flat keyed file:
//
//	usage_usec 1234
//	user_usec 1000
//	system_usec 234
func parseCPUStat(s string) (uint64, error) {
	for i, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok || k != "usage_usec" {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("line %d: want \"usage_usec N\", got %q", i+1, line)
		}
		return n, nil
	}
	return 0, errors.New("want a line \"usage_usec N\", found none")
}

// parseSingleValue parses a file holding one unsigned integer, such as memory.current or
// pids.current ("max" is not a reading and is refused).
func parseSingleValue(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("want one unsigned integer, got %q", t)
	}
	return n, nil
}

// parseIOStat sums rbytes and wbytes over the devices of a cgroup v2 io.stat, a nested keyed file:
//
//	8:0 rbytes=90430464 wbytes=299008000 rios=8950 wios=12252 dbytes=0 dios=0
//	253:1 rbytes=4096 wbytes=0 rios=1 wios=0 dbytes=0 dios=0
//
// Keys other than rbytes and wbytes are skipped; an empty file (no I/O yet) is zero.
func parseIOStat(s string) (rbytes, wbytes uint64, err error) {
	for i, line := range strings.Split(s, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if !strings.Contains(fields[0], ":") {
			return 0, 0, fmt.Errorf("line %d: want \"MAJOR:MINOR key=value ...\", got %q", i+1, line)
		}
		for _, f := range fields[1:] {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				return 0, 0, fmt.Errorf("line %d: want key=value, got %q", i+1, f)
			}
			if k != "rbytes" && k != "wbytes" {
				continue
			}
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return 0, 0, fmt.Errorf("line %d: %s: want an unsigned integer, got %q", i+1, k, v)
			}
			if k == "rbytes" {
				rbytes += n
			} else {
				wbytes += n
			}
		}
	}
	return rbytes, wbytes, nil
}

// parseCgroupProcs parses cgroup.procs: one PID a line.
func parseCgroupProcs(s string) ([]int, error) {
	var pids []int
	for i, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		n, err := strconv.Atoi(t)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("line %d: want a PID, got %q", i+1, t)
		}
		pids = append(pids, n)
	}
	return pids, nil
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
