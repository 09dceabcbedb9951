package monitor

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// HostReading is one read of what the machine's CPUs did, over the CPUs the watched process may
// run on (its affinity): cumulative counters since boot, and a level now. The load generator
// watching itself reads it to tell its own shortage of CPU from another process's use of it.
type HostReading struct {
	CPUs int // the CPUs counted: those the process may run on
	// Busy is the time those CPUs ran anything but idle (user, nice, system, irq, softirq) and
	// Steal the time a hypervisor gave them to another guest, both cumulative.
	Busy, Steal time.Duration
	Running     uint64 // tasks runnable on the whole machine now (procs_running of /proc/stat)
	Online      int    // CPUs of the whole machine
}

// HostSample is what the CPUs a process may run on did during one interval, besides the process.
type HostSample struct {
	CPUs int `json:"cpus"`
	// OthersPercent is the CPU time other processes (and the kernel's interrupts) took on those
	// CPUs over the interval, in percent of one core: their busy time less the process's own.
	OthersPercent float64 `json:"others_cpu_percent"`
	StealPercent  float64 `json:"steal_percent"` // of one core
	Running       uint64  `json:"procs_running"`
	Online        int     `json:"online_cpus"`
}

// observeHost folds a host reading into the sample x, whose own CPU % is already set, against the
// previous reading; with no previous reading (the baseline) it records only the levels.
func observeHost(x *Sample, now, prev *HostReading) {
	if now == nil {
		return
	}
	h := &HostSample{CPUs: now.CPUs, Running: now.Running, Online: now.Online}
	if prev != nil && x.Interval > 0 {
		secs := x.Interval.Seconds()
		// the counters tick 100 times a second, not at the sample's instants: a share is kept
		// within what the CPUs could give
		most := 100 * float64(now.CPUs)
		busy := diffDur(now.Busy, prev.Busy).Seconds()
		h.OthersPercent = min(most, max(0, 100*busy/secs-x.CPUPercent))
		h.StealPercent = min(most, 100*diffDur(now.Steal, prev.Steal).Seconds()/secs)
	}
	x.Host = h
}

// UsableCPUs is how many CPUs this process can keep busy at once: the least of GOMAXPROCS, the CPUs
// its affinity lets it run on and its cgroup's CPU quota (cpu.max), where those can be read.
func UsableCPUs() float64 {
	n := float64(runtime.GOMAXPROCS(0))
	if a := affinityCPUs(); a > 0 {
		n = min(n, float64(a))
	}
	if q := cgroupQuota(); q > 0 {
		n = min(n, q)
	}
	return n
}

// parseCPUMax reads a cgroup v2 cpu.max ("QUOTA PERIOD", or "max PERIOD" for none) as CPUs; 0
// for none or a file that cannot be read.
func parseCPUMax(path string) float64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 || f[0] == "max" {
		return 0
	}
	quota, err1 := strconv.ParseFloat(f[0], 64)
	period, err2 := strconv.ParseFloat(f[1], 64)
	if err1 != nil || err2 != nil || quota <= 0 || period <= 0 {
		return 0
	}
	return quota / period
}
