//go:build linux

package monitor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"
)

// affinityCPUs is how many CPUs this process may run on; 0 when the kernel does not say.
func affinityCPUs() int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return 0
	}
	return set.Count()
}

// cgroupQuota is the CPU quota of this process's cgroup v2 (cpu.max "QUOTA PERIOD") in CPUs; 0
// when there is none ("max") or it cannot be read.
func cgroupQuota() float64 {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			return parseCPUMax(filepath.Join("/sys/fs/cgroup", rest, "cpu.max"))
		}
	}
	return 0
}

// readHost reads /proc/stat over the CPUs this process may run on.
func readHost(fs procfs.FS) (*HostReading, error) {
	st, err := fs.Stat()
	if err != nil {
		return nil, fmt.Errorf("monitor: reading /proc/stat: %w", err)
	}
	var set unix.CPUSet
	all := unix.SchedGetaffinity(0, &set) != nil // unknown affinity: every CPU
	h := &HostReading{Running: st.ProcessesRunning, Online: len(st.CPU)}
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	for id, c := range st.CPU {
		if !all && !set.IsSet(int(id)) {
			continue
		}
		h.CPUs++
		h.Busy += sec(c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ)
		h.Steal += sec(c.Steal)
	}
	return h, nil
}
