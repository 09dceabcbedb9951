package monitor

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
)

const recordedDir = "testdata/docker-api-1.41"

// recordedID is the ID of the running container in the recorded answers (inspect.json).
const recordedID = "d467fbb749909680313d5d1abc48bea752dd662918702b6af73afcc4a4a37500"

// recordedDaemon serves the answers a real dockerd gave (testdata/docker-api-1.41) on loopback:
// the ping, inspect of the running, exited and missing containers, and the stats of the running
// one, stats1.json then stats2.json then stats2.json again. It records the stats queries.
type recordedDaemon struct {
	srv *httptest.Server
	mu  sync.Mutex
	// statsQueries are the query strings of the stats requests, in order
	statsQueries []string
}

func newRecordedDaemon(t *testing.T) *recordedDaemon {
	t.Helper()
	d := newRecordedHandler(t, nil)
	d.srv.Start() // 127.0.0.1
	t.Cleanup(d.srv.Close)
	t.Setenv("DOCKER_HOST", d.host())
	return d
}

// newRecordedHandler is the server of newRecordedDaemon, not started; edit, if not nil, changes
// the running container's inspect answer.
func newRecordedHandler(t *testing.T, edit func([]byte) []byte) *recordedDaemon {
	t.Helper()
	d := &recordedDaemon{}
	file := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(recordedDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	running := file("inspect.json")
	if edit != nil {
		running = edit(running)
	}
	inspect := map[string][]byte{"mon25-load": running, recordedID: running, "mon25-done": file("inspect-exited.json")}
	stats := [][]byte{file("stats1.json"), file("stats2.json")}
	missing := file("inspect-missing.json")
	mux := http.NewServeMux()
	mux.HandleFunc("/_ping", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Api-Version", "1.41") // as the daemon's ping.headers said
		w.Header().Set("Ostype", "linux")
		w.Write([]byte("OK"))
	})
	mux.HandleFunc("GET /v1.41/containers/{name}/json", func(w http.ResponseWriter, r *http.Request) {
		b, ok := inspect[r.PathValue("name")]
		w.Header().Set("Content-Type", "application/json")
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(strings.ReplaceAll(string(missing), "mon25-nosuch", r.PathValue("name"))))
			return
		}
		w.Write(b)
	})
	mux.HandleFunc("GET /v1.41/containers/{id}/stats", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") != recordedID {
			http.Error(w, `{"message":"want the container's ID"}`, http.StatusBadRequest)
			return
		}
		d.mu.Lock()
		n := len(d.statsQueries)
		d.statsQueries = append(d.statsQueries, r.URL.RawQuery)
		d.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(stats[min(n, len(stats)-1)])
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	})
	d.srv = httptest.NewUnstartedServer(mux)
	return d
}

func (d *recordedDaemon) host() string {
	if a := d.srv.Listener.Addr(); a.Network() == "unix" {
		return "unix://" + a.String()
	}
	return "tcp://" + d.srv.Listener.Addr().String()
}

// A container whose daemon is not on this machine (DOCKER_HOST over TCP) is read through the
// stats API; the figures of two recorded answers, worked out by hand from the JSON:
//
//	CPU: (1850418307 − 24190346) ns over 6 s = 1826227961 / 6e9 = 30.437132683…%
//	memory: memory_stats.usage of stats2 = 524288; threads: pids_stats.current = 1
//	network: eth0 rx 1166 − 986 = 180, tx 0 − 0 = 0; disk: empty lists, so 0 and known
func TestContainerRecordedStats(t *testing.T) {
	d := newRecordedDaemon(t)
	s, err := NewSampler(Container("mon25-load"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "container mon25-load (Docker API stats)"; s.Label() != want {
		t.Errorf("label %q, want %q", s.Label(), want)
	}
	if want := "Docker API stats, " + d.host() + ", id d467fbb74990"; s.Route() != want {
		t.Errorf("route %q, want %q", s.Route(), want)
	}
	t0 := time.Date(2026, 11, 27, 3, 0, 34, 0, time.UTC)
	base, err := s.Sample(t0)
	if err != nil {
		t.Fatal(err)
	}
	if base.RSS != 602112 || base.Threads != 2 || base.Procs != 1 || base.CPUPercent != 0 {
		t.Errorf("baseline %+v: want rss 602112, threads 2, procs 1, cpu 0", base)
	}
	x, err := s.Sample(t0.Add(6 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if want := 1826227961.0 / 6e9 * 100; x.CPUPercent < want-1e-9 || x.CPUPercent > want+1e-9 {
		t.Errorf("cpu %v%%, want %v%%", x.CPUPercent, want)
	}
	if x.RSS != 524288 || x.Threads != 1 || x.Procs != 1 || x.PIDs != nil {
		t.Errorf("rss %d threads %d procs %d pids %v: want 524288, 1, 1, none", x.RSS, x.Threads, x.Procs, x.PIDs)
	}
	if !x.NetKnown || x.NetOwn || x.NetHost || x.NetRx != 180 || x.NetTx != 0 || x.NetRxTotal != 180 {
		t.Errorf("net known %v own %v host %v rx %d tx %d rx total %d: want the container's namespace, 180, 0, 180",
			x.NetKnown, x.NetOwn, x.NetHost, x.NetRx, x.NetTx, x.NetRxTotal)
	}
	if !x.DiskKnown || x.DiskRead != 0 || x.DiskWrite != 0 || x.FDsKnown {
		t.Errorf("disk known %v read %d write %d, fds known %v: want known zeros and no open files", x.DiskKnown, x.DiskRead, x.DiskWrite, x.FDsKnown)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.statsQueries) != 2 {
		t.Fatalf("stats asked %d times, want 2", len(d.statsQueries))
	}
	for _, q := range d.statsQueries {
		// one-shot: the daemon answers at once instead of waiting a second for a previous sample
		if q != "one-shot=true&stream=false" {
			t.Errorf("stats query %q, want one-shot=true&stream=false", q)
		}
	}
}

// noRuntimes leaves the command-line fallback (ContainerRuntimes) nothing to find on PATH for the
// test, so that a docker program here does not ask the same daemon again.
func noRuntimes(t *testing.T) {
	old := ContainerRuntimes
	ContainerRuntimes = []string{"rpcbench-no-such-runtime"}
	t.Cleanup(func() { ContainerRuntimes = old })
}

// The API's refusals reach the caller with the container's name and what was expected.
func TestContainerRecordedRefusals(t *testing.T) {
	d := newRecordedDaemon(t)
	noRuntimes(t)
	for _, tc := range []struct{ name, want string }{
		{"mon25-done", "container mon25-done: the Docker Engine API at " + d.host() + ": it is exited: want a running container"},
		{"mon25-nosuch", "No such container: mon25-nosuch"},
	} {
		_, err := NewSampler(Container(tc.name))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to say %q", tc.name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "found neither") {
			t.Errorf("%s: error %v: the daemon answered, want its word alone", tc.name, err)
		}
	}
}

// With no API answering and no runtime on PATH, the error names the address tried and what to do.
func TestContainerNoDaemon(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := "tcp://" + ln.Addr().String()
	ln.Close() // refused from now on
	t.Setenv("DOCKER_HOST", host)
	noRuntimes(t)
	_, err = NewSampler(Container("web"))
	for _, want := range []string{"container web: no Docker Engine API answered (tried " + host + ")", "; and found neither rpcbench-no-such-runtime on PATH; start the daemon (or podman system service), set DOCKER_HOST"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to say %q", err, want)
		}
	}
	if _, err := ContainerCgroup(t.Context(), "web"); err == nil || !strings.Contains(err.Error(), "no Docker Engine API answered") {
		t.Errorf("ContainerCgroup: error %v, want no API answered", err)
	}
}

// ContainerCgroup does not hand out the cgroup of a PID a remote daemon told: the container is to
// be watched through the API.
func TestContainerCgroupRemoteDaemon(t *testing.T) {
	newRecordedDaemon(t)
	_, err := ContainerCgroup(t.Context(), "mon25-load")
	if err == nil || !strings.Contains(err.Error(), "watch it as a container (the stats of the Docker Engine API") {
		t.Errorf("error %v, want it to send the caller to the API's stats", err)
	}
}

// Shapes the recording above lacks (hand-written after the API's documentation): a cgroup v2
// host's lower-case block I/O entries over two devices, a v1 host's capitalised ones, and a Windows container's 100 ns CPU
// units, private working set and storage bytes.
func TestStatsSnapshotShapes(t *testing.T) {
	v2 := container.StatsResponse{ID: "abc", OSType: "linux",
		CPUStats:    container.CPUStats{CPUUsage: container.CPUUsage{TotalUsage: 2_500_000_000}},
		MemoryStats: container.MemoryStats{Usage: 7 << 20, PrivateWorkingSet: 1},
		PidsStats:   container.PidsStats{Current: 9},
		BlkioStats: container.BlkioStats{IoServiceBytesRecursive: []container.BlkioStatEntry{
			{Major: 8, Minor: 0, Op: "read", Value: 4096}, {Major: 8, Minor: 0, Op: "write", Value: 100},
			{Major: 253, Minor: 1, Op: "read", Value: 10}, {Major: 253, Minor: 1, Op: "write", Value: 1},
			{Major: 253, Minor: 1, Op: "Total", Value: 11}}},
		Networks: map[string]container.NetworkStats{"eth0": {RxBytes: 5, TxBytes: 7}, "eth1": {RxBytes: 50, TxBytes: 70}},
	}
	got := statsSnapshot(v2)
	p := got.Procs[0]
	if p.CPU != 2500*time.Millisecond || p.RSS != 7<<20 || p.Threads != 9 || !p.IOKnown || p.ReadBytes != 4106 || p.WriteBytes != 101 || p.FDs != -1 {
		t.Errorf("cgroup v2 reading %+v: want cpu 2.5s, rss 7 MiB, 9 threads, read 4106, write 101, fds unknown", p)
	}
	if len(got.Net) != 1 || got.Net[0].Rx != 55 || got.Net[0].Tx != 77 || got.Net[0].Host {
		t.Errorf("net %+v: want one namespace, rx 55, tx 77", got.Net)
	}
	v1 := container.StatsResponse{ID: "abc", OSType: "linux", BlkioStats: container.BlkioStats{
		IoServiceBytesRecursive: []container.BlkioStatEntry{{Major: 8, Op: "Read", Value: 3}, {Major: 8, Op: "Write", Value: 5},
			{Major: 8, Op: "Sync", Value: 8}, {Major: 8, Op: "Total", Value: 8}}}}
	if p := statsSnapshot(v1).Procs[0]; p.ReadBytes != 3 || p.WriteBytes != 5 {
		t.Errorf("cgroup v1 block I/O: read %d write %d, want 3 and 5", p.ReadBytes, p.WriteBytes)
	}
	win := container.StatsResponse{ID: "def", OSType: "windows",
		CPUStats:     container.CPUStats{CPUUsage: container.CPUUsage{TotalUsage: 30_000_000}}, // 3 s in 100 ns
		MemoryStats:  container.MemoryStats{PrivateWorkingSet: 12345, Commit: 99999},
		StorageStats: container.StorageStats{ReadSizeBytes: 11, WriteSizeBytes: 22},
		NumProcs:     4,
	}
	p = statsSnapshot(win).Procs[0]
	if p.CPU != 3*time.Second || p.RSS != 12345 || p.ReadBytes != 11 || p.WriteBytes != 22 || p.Threads != 0 {
		t.Errorf("windows reading %+v: want cpu 3s, rss 12345, read 11, write 22, no thread count", p)
	}
	if n := statsSnapshot(container.StatsResponse{OSType: "linux"}).Net; n != nil {
		t.Errorf("a container without networks: net %+v, want none", n)
	}
}

// A real daemon, when RPCBENCH_TEST_CONTAINER names a running container of the Docker Engine API
// that DOCKER_HOST (or the default socket) serves on this machine: one reading through the API
// lies between two readings of the container's own cgroup files made around it (cgroup v1's
// cpuacct.usage and memory.usage_in_bytes, or v2's cpu.stat and memory.current), an independent
// route to the same counters.
func TestContainerRealDaemon(t *testing.T) {
	name := os.Getenv("RPCBENCH_TEST_CONTAINER")
	if name == "" {
		t.Skip("RPCBENCH_TEST_CONTAINER names no running container of a real daemon")
	}
	c, _, err := findContainer(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	defer c.cli.Close()
	cpuFile, memFile := realCgroupFiles(t, c.pid)
	readCPU := func() time.Duration {
		b, err := os.ReadFile(cpuFile)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(cpuFile, "cpu.stat") {
			usec, err := parseCPUStat(string(b))
			if err != nil {
				t.Fatal(err)
			}
			return time.Duration(usec) * time.Microsecond
		}
		ns, err := parseSingleValue(string(b))
		if err != nil {
			t.Fatal(err)
		}
		return time.Duration(ns)
	}
	readMem := func() uint64 {
		b, err := os.ReadFile(memFile)
		if err != nil {
			t.Fatal(err)
		}
		n, err := parseSingleValue(string(b))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	cpu0, mem0 := readCPU(), readMem()
	snap, err := c.read()
	if err != nil {
		t.Fatal(err)
	}
	cpu1, mem1 := readCPU(), readMem()
	p := snap.Procs[0]
	t.Logf("%s: cgroup cpu %v..%v, API %v; cgroup memory %d..%d, API %d", c.host, cpu0, cpu1, p.CPU, mem0, mem1, p.RSS)
	if p.CPU < cpu0-time.Microsecond || p.CPU > cpu1+time.Microsecond {
		t.Errorf("API cpu %v, want between the cgroup's %v and %v", p.CPU, cpu0, cpu1)
	}
	if lo, hi := min(mem0, mem1), max(mem0, mem1); p.RSS < lo || p.RSS > hi {
		t.Errorf("API memory %d, want between the cgroup's %d and %d", p.RSS, lo, hi)
	}
	// a Sampler reads the cgroup v2 directory where there is one, the API elsewhere
	s, err := NewSampler(Container(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Log(s.Label(), "; ", s.Route())
	want := "Docker API stats, " + c.host + ", id " + shortID(c.id)
	if strings.HasSuffix(cpuFile, "cpu.stat") {
		want = "cgroup, " + filepath.Dir(cpuFile)
	}
	if s.Route() != want {
		t.Errorf("route %q, want %q", s.Route(), want)
	}
}

// realCgroupFiles finds the CPU and memory counters of process pid's cgroup: v1's cpuacct and
// memory hierarchies where the process is in them, else v2's.
func realCgroupFiles(t *testing.T, pid int) (cpu, mem string) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cgroup"))
	if err != nil {
		t.Fatalf("the container's process %d is not this machine's: %v", pid, err)
	}
	for line := range strings.Lines(string(b)) {
		f := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(f) != 3 {
			continue
		}
		for _, ctl := range strings.Split(f[1], ",") {
			switch ctl {
			case "cpuacct":
				cpu = filepath.Join("/sys/fs/cgroup", f[1], f[2], "cpuacct.usage")
			case "memory":
				mem = filepath.Join("/sys/fs/cgroup", f[1], f[2], "memory.usage_in_bytes")
			}
		}
		if f[0] == "0" && cpu == "" {
			cpu = filepath.Join("/sys/fs/cgroup", f[2], "cpu.stat")
			mem = filepath.Join("/sys/fs/cgroup", f[2], "memory.current")
		}
	}
	return cpu, mem
}

// A container's cgroup is read only where the daemon is on this machine and the cgroup its PID is
// in names the container's ID; otherwise (errNoCgroup) the API's stats are. This process stands in
// for the container's main process, its cgroup laid out as a v2 directory under a temporary root.
func TestContainerCgroupDirChecks(t *testing.T) {
	rest := selfCgroupPath(t)
	root := t.TempDir()
	dir := filepath.Join(root, rest)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"cgroup.controllers", "cpu.stat"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("usage_usec 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := cgroupRoot
	cgroupRoot = root
	t.Cleanup(func() { cgroupRoot = old })
	id := filepath.Base(dir) // a "container ID" that the directory's path names
	pid := os.Getpid()
	if got, err := containerCgroupDir("web", id, pid, "unix:///var/run/docker.sock"); err != nil || got != dir {
		t.Errorf("local daemon, ID in the path: %q, %v; want %q", got, err, dir)
	}
	for _, tc := range []struct{ what, id, host string }{
		{"a daemon over TCP", id, "tcp://127.0.0.1:2375"},
		{"a PID of another namespace (its cgroup does not name the ID)", "d467fbb74990", "unix:///var/run/docker.sock"},
	} {
		if got, err := containerCgroupDir("web", tc.id, pid, tc.host); !errors.Is(err, errNoCgroup) {
			t.Errorf("%s: %q, %v; want errNoCgroup", tc.what, got, err)
		}
	}
}

// A daemon on this machine's socket whose container's main process is in a cgroup v2 directory
// naming its ID: the directory is read, not the API's stats. The recorded inspect answer is edited
// to give this process as the container's main process, and the cgroup is laid out under a
// temporary root whose path names the recorded ID; CPU 1.5 s then 2.1 s over 2 s is 30%.
func TestContainerLocalCgroupRoute(t *testing.T) {
	rest := selfCgroupPath(t)
	root := filepath.Join(t.TempDir(), recordedID)
	dir := filepath.Join(root, rest)
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write("cgroup.controllers", "cpu memory pids\n")
	write("cpu.stat", "usage_usec 1500000\n")
	write("memory.current", "4096\n")
	write("pids.current", "3\n")
	write("cgroup.procs", strconv.Itoa(os.Getpid())+"\n")
	old := cgroupRoot
	cgroupRoot = root
	t.Cleanup(func() { cgroupRoot = old })

	d := newRecordedHandler(t, func(b []byte) []byte {
		return []byte(strings.Replace(string(b), `"Pid":12966`, `"Pid":`+strconv.Itoa(os.Getpid()), 1))
	})
	sock := filepath.Join(t.TempDir(), "docker.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	d.srv.Listener = ln
	d.srv.Start()
	t.Cleanup(d.srv.Close)
	t.Setenv("DOCKER_HOST", "unix://"+sock)

	s, err := NewSampler(Container("mon25-load"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Label() != "container mon25-load (cgroup)" || s.Route() != "cgroup, "+dir {
		t.Errorf("label %q, route %q; want the cgroup %s", s.Label(), s.Route(), dir)
	}
	t0 := time.Now()
	if _, err := s.Sample(t0); err != nil {
		t.Fatal(err)
	}
	write("cpu.stat", "usage_usec 2100000\n")
	x, err := s.Sample(t0.Add(2 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if x.CPUPercent < 30-1e-9 || x.CPUPercent > 30+1e-9 || x.RSS != 4096 || x.Threads != 3 {
		t.Errorf("cpu %v%% rss %d threads %d, want 30%%, 4096, 3", x.CPUPercent, x.RSS, x.Threads)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.statsQueries) != 0 {
		t.Errorf("the API's stats were asked %d times, want none", len(d.statsQueries))
	}
}

// selfCgroupPath is the cgroup v2 path of this process (the "0::" line of /proc/self/cgroup); the
// test is skipped where there is none.
func selfCgroupPath(t *testing.T) string {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Skip("no /proc/self/cgroup:", err)
	}
	for line := range strings.Lines(string(b)) {
		if r, ok := strings.CutPrefix(strings.TrimSpace(line), "0::"); ok {
			return r
		}
	}
	t.Skip("this process is in no cgroup v2 hierarchy")
	return ""
}
