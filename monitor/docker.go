package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

// dockerTimeout bounds each call to the Docker Engine API: finding the daemon, inspecting a
// container, one read of its stats.
const dockerTimeout = 10 * time.Second

// dockerHosts are the addresses where a Docker Engine API may answer, in the order they are
// tried: DOCKER_HOST alone when it is set; else the client's default (/var/run/docker.sock, or
// Windows' named pipe), Docker Desktop's socket in the home directory, and podman's rootful and
// rootless sockets (podman system service serves the same API).
func dockerHosts() []string {
	if h := os.Getenv(client.EnvOverrideHost); h != "" {
		return []string{h}
	}
	hosts := []string{client.DefaultDockerHost}
	if runtime.GOOS == "windows" {
		return hosts
	}
	if home, err := os.UserHomeDir(); err == nil {
		hosts = append(hosts, "unix://"+filepath.Join(home, ".docker", "run", "docker.sock"))
	}
	hosts = append(hosts, "unix:///run/podman/podman.sock")
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
		hosts = append(hosts, "unix://"+filepath.Join(dir, "podman", "podman.sock"))
	}
	return hosts
}

// dockerContainer is a running container as the Docker Engine API answered for it.
type dockerContainer struct {
	cli  *client.Client
	host string // the API's address, as dockerHosts names it
	id   string
	pid  int // its main process, in the daemon's PID namespace (0 on Docker Desktop's VM: not ours)
}

// findContainer asks the first Docker Engine API that answers (dockerHosts) for the running
// container name; reached says whether one answered. Errors name the container.
func findContainer(ctx context.Context, name string) (c *dockerContainer, reached bool, err error) {
	var tried []string
	var lastErr error
	for _, host := range dockerHosts() {
		if path, ok := strings.CutPrefix(host, "unix://"); ok && os.Getenv(client.EnvOverrideHost) == "" {
			if _, err := os.Stat(path); err != nil {
				tried = append(tried, host+" (no socket)")
				continue
			}
		}
		opts := []client.Opt{client.WithHost(host)}
		if os.Getenv(client.EnvOverrideHost) != "" {
			opts = []client.Opt{client.FromEnv} // its TLS settings and API version too
		}
		cli, err := client.New(opts...)
		if err != nil {
			tried, lastErr = append(tried, host), err
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, dockerTimeout)
		_, err = cli.Ping(pctx, client.PingOptions{NegotiateAPIVersion: true})
		cancel()
		if err != nil {
			cli.Close()
			tried, lastErr = append(tried, host), err
			continue
		}
		c, err := inspectContainer(ctx, cli, name)
		if err != nil {
			cli.Close()
			return nil, true, fmt.Errorf("monitor: container %s: the Docker Engine API at %s: %w", name, host, err)
		}
		c.host = host
		return c, true, nil
	}
	why := ""
	if lastErr != nil {
		why = ": " + lastErr.Error()
	}
	return nil, false, fmt.Errorf("monitor: container %s: no Docker Engine API answered (tried %s)%s", name, strings.Join(tried, ", "), why)
}

// inspectContainer asks cli for the container name: its ID and main process, if it runs.
func inspectContainer(ctx context.Context, cli *client.Client, name string) (*dockerContainer, error) {
	ictx, cancel := context.WithTimeout(ctx, dockerTimeout)
	defer cancel()
	res, err := cli.ContainerInspect(ictx, name, client.ContainerInspectOptions{})
	if err != nil {
		return nil, err
	}
	st := res.Container.State
	if st == nil || !st.Running {
		status := "unknown"
		if st != nil {
			status = string(st.Status)
		}
		return nil, fmt.Errorf("it is %s: want a running container", status)
	}
	return &dockerContainer{cli: cli, id: res.Container.ID, pid: st.Pid}, nil
}

// read asks the API for one reading of the container's stats (one-shot: no second sample waited
// for) and turns it into a snapshot.
func (c *dockerContainer) read() (Snapshot, error) {
	ctx, cancel := context.WithTimeout(context.Background(), dockerTimeout)
	defer cancel()
	res, err := c.cli.ContainerStats(ctx, c.id, client.ContainerStatsOptions{})
	if err != nil {
		return Snapshot{}, fmt.Errorf("monitor: container %s: stats from the Docker Engine API at %s: %w", shortID(c.id), c.host, err)
	}
	defer res.Body.Close()
	var st container.StatsResponse
	if err := json.NewDecoder(res.Body).Decode(&st); err != nil {
		return Snapshot{}, fmt.Errorf("monitor: container %s: stats from the Docker Engine API at %s: %w", shortID(c.id), c.host, err)
	}
	return statsSnapshot(st), nil
}

// statsSnapshot turns one answer of the stats API into a snapshot of the container as a whole,
// like a cgroup's (one ProcReading with PID 0):
//   - CPU: cpu_stats.cpu_usage.total_usage, nanoseconds on Linux, 100 ns units for a Windows
//     container.
//   - Memory: memory_stats.usage as the daemon gives it (the cgroup's memory.current on cgroup
//     v2, page cache included, as the cgroup route reads it); a Windows container's private
//     working set.
//   - Disk: the Read and Write entries of blkio_stats.io_service_bytes_recursive summed over
//     devices (an empty list is no I/O yet); a Windows container's storage_stats bytes.
//   - Threads: pids_stats.current, the cgroup's tasks; open files are not told (FDs -1).
//   - Network: the container's interfaces (networks) summed, as one namespace named by the
//     container's ID; none when it has no network of its own (--network host or none).
func statsSnapshot(st container.StatsResponse) Snapshot {
	p := ProcReading{FDs: -1, IOKnown: true}
	if st.OSType == "windows" {
		p.CPU = time.Duration(st.CPUStats.CPUUsage.TotalUsage) * 100
		p.RSS = st.MemoryStats.PrivateWorkingSet
		p.ReadBytes, p.WriteBytes = st.StorageStats.ReadSizeBytes, st.StorageStats.WriteSizeBytes
	} else {
		p.CPU = time.Duration(st.CPUStats.CPUUsage.TotalUsage)
		p.RSS = st.MemoryStats.Usage
		p.Threads = int(st.PidsStats.Current)
		for _, e := range st.BlkioStats.IoServiceBytesRecursive {
			switch strings.ToLower(e.Op) { // "Read" on cgroup v1, "read" on v2
			case "read":
				p.ReadBytes += e.Value
			case "write":
				p.WriteBytes += e.Value
			}
		}
	}
	snap := Snapshot{Procs: []ProcReading{p}}
	if len(st.Networks) > 0 {
		h := fnv.New64a()
		h.Write([]byte(st.ID))
		n := NetReading{Namespace: h.Sum64()}
		for _, x := range st.Networks {
			n.Rx += x.RxBytes
			n.Tx += x.TxBytes
		}
		snap.Net = []NetReading{n}
	}
	return snap
}

// shortID is a container ID as docker ps shows it: its first 12 characters.
func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// newContainerSampler watches the container of target through the stats of the Docker Engine
// API c answers on.
func newContainerSampler(target Target, c *dockerContainer) *Sampler {
	return &Sampler{target: target, read: c.read,
		route: fmt.Sprintf("Docker API stats, %s, id %s", c.host, shortID(c.id))}
}

// errNoCgroup says a container's process is in no cgroup v2 directory this process can read.
var errNoCgroup = errors.New("no cgroup v2 directory to read")
