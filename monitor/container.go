package monitor

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// ContainerRuntimes are the programs asked, in order, where a container runs when no Docker
// Engine API answers (podman without its API service, say).
var ContainerRuntimes = []string{"docker", "podman"}

// cgroupRoot is where the cgroup v2 hierarchy is mounted.
var cgroupRoot = "/sys/fs/cgroup"

// ContainerCgroup finds the cgroup v2 directory of a running container: the Docker Engine API
// (findContainer: docker's socket, Docker Desktop's, podman's) or, when none answers or it does
// not know the container, the first runtime of ContainerRuntimes on PATH says the PID of its main
// process, and /proc/PID/cgroup the cgroup it runs in. Errors say what to watch instead. A Sampler
// of Container(name) does this itself and reads the API's stats where there is no cgroup.
func ContainerCgroup(ctx context.Context, name string) (string, error) {
	dir, c, err := resolveContainer(ctx, name)
	if c != nil {
		c.cli.Close()
		return "", fmt.Errorf("monitor: container %s: %w here; watch it as a container (the stats of the Docker Engine API at %s) instead", name, errNoCgroup, c.host)
	}
	return dir, err
}

// resolveContainer finds how to read the running container name: its cgroup v2 directory where
// this process can read it (dir), else the Docker Engine API that answered for it (api, to be
// closed by the caller). The API is asked first; when none answers, or it does not know the
// container, the runtimes' command line (containerPIDFromCLI) names its main process.
func resolveContainer(ctx context.Context, name string) (dir string, api *dockerContainer, err error) {
	c, reached, apiErr := findContainer(ctx, name)
	if apiErr == nil {
		dir, err := containerCgroupDir(name, c.id, c.pid, c.host)
		if err != nil {
			return "", c, nil // errNoCgroup: its stats through the API
		}
		c.cli.Close()
		return dir, nil, nil
	}
	pid, rt, err := containerPIDFromCLI(ctx, name)
	switch {
	case err != nil && reached:
		return "", nil, apiErr // the daemon's own word on the container
	case err != nil:
		return "", nil, fmt.Errorf("%w; and %v; start the daemon (or podman system service), set DOCKER_HOST, or watch the container's cgroup or main process instead", apiErr, err)
	}
	dir, err = cgroupOfPID(name, pid, rt)
	return dir, nil, err
}

// containerCgroupDir is the cgroup v2 directory of the container id whose main process pid the API
// at host told: only where that process is this machine's (a local socket) and its cgroup's path
// names the container's ID, so that a PID of another machine or PID namespace is never read.
// Every error wraps errNoCgroup.
func containerCgroupDir(name, id string, pid int, host string) (string, error) {
	if !strings.HasPrefix(host, "unix://") || pid <= 0 {
		return "", fmt.Errorf("monitor: container %s: %w: the Docker Engine API at %s runs it elsewhere", name, errNoCgroup, host)
	}
	dir, err := cgroupOfPID(name, pid, "the Docker Engine API")
	if err != nil {
		return "", err
	}
	if !strings.Contains(dir, id) {
		return "", fmt.Errorf("monitor: container %s: %w: process %d is in %s, which does not name the container's ID (another PID namespace)", name, errNoCgroup, pid, dir)
	}
	return dir, nil
}

// containerPIDFromCLI asks the first runtime of ContainerRuntimes on PATH for the main process of
// the running container name; rt names the runtime for errors, which do not name the container.
func containerPIDFromCLI(ctx context.Context, name string) (pid int, rt string, err error) {
	var path string
	for _, r := range ContainerRuntimes {
		if p, err := exec.LookPath(r); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		return 0, "", fmt.Errorf("found neither %s on PATH", strings.Join(ContainerRuntimes, " nor "))
	}
	rt = filepath.Base(path)
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, path, "inspect", "--format", "{{.State.Pid}}", name)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, rt, fmt.Errorf("%s inspect failed: %v %s", rt, err, strings.TrimSpace(stderr.String()))
	}
	pid, err = strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || pid <= 0 {
		return 0, rt, fmt.Errorf("%s says its main process is %q: want a running container", rt, strings.TrimSpace(string(out)))
	}
	return pid, rt, nil
}

// cgroupOfPID is the cgroup v2 directory that /proc/PID/cgroup names for the main process of the
// container name, as who told it, if it is one (checkCgroupDir). Every error wraps errNoCgroup.
func cgroupOfPID(name string, pid int, who string) (string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return "", fmt.Errorf("monitor: container %s: reading the cgroup of its process %d (as %s told): %w: %v", name, pid, who, errNoCgroup, err)
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "0::"); ok {
			dir := filepath.Join(cgroupRoot, rest)
			if err := checkCgroupDir(dir); err != nil {
				return "", fmt.Errorf("monitor: container %s: %w: %s", name, errNoCgroup, strings.TrimPrefix(err.Error(), "monitor: "))
			}
			return dir, nil
		}
	}
	return "", fmt.Errorf("monitor: container %s: its process %d is in no cgroup v2 (%w); watch its main process %d instead", name, pid, errNoCgroup, pid)
}
