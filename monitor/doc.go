// Package monitor samples the resources a benchmark's target uses while the load runs: CPU (as a
// percentage of one core, so 200% is two cores), resident memory, disk read and write bytes,
// network bytes (the target's own TCP sockets' where Linux lets them be read, else its network
// namespace's, and Summary.NetScope says which), threads and open files, and which processes were
// counted (their PIDs, and when that set changed). A Target names what to watch: processes by PID together
// with all their descendants, processes by name, a cgroup v2 directory, a container or this
// process itself, so the load generator can show when it was the bottleneck.
//
// A Sampler reads the target each time its caller asks (the engine's tick) and turns two
// consecutive readings into a Sample; the arithmetic (Sampler.Observe) takes the time and the
// readings as parameters, so it is tested without a clock. Run is a convenience ticker around it.
// A Series keeps a bounded number of samples for time-series output and exact running averages and
// peaks for the summary. A Scraper reads chosen series of the target's own Prometheus metrics on
// the same timeline. Profiles captures a Go target's CPU profile and its allocations over the
// measured window through its net/http/pprof handlers. Listeners names the processes that listen
// on a TCP port (from /proc/net/tcp{,6} and each process's /proc/PID/fd), so that a caller can
// tell who answers there.
//
// It sits beside the flow plan → schedule → engine → transport → result → summary → report: it is
// a leaf that imports nothing from the project, and the real clock lives only here and in engine.
// Processes are read from /proc on Linux and through gopsutil elsewhere (macOS, Windows, FreeBSD),
// with fewer figures; a cgroup needs Linux (ErrUnsupported elsewhere). A container (Container) is
// found through the Docker Engine API and read from its cgroup v2 directory where this machine
// has it, else from the API's stats (Docker Desktop, cgroup v1, a remote daemon); Sampler.Label
// says which.
package monitor
