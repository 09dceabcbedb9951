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

// ContainerRuntimes are the programs ContainerCgroup asks, in order, where a container runs.
var ContainerRuntimes = []string{"docker", "podman"}

// ContainerCgroup finds the cgroup v2 directory of a running container: the first runtime of
// ContainerRuntimes on PATH says the PID of its main process, and /proc/PID/cgroup the cgroup it
// runs in. Errors say what to watch instead.
func ContainerCgroup(ctx context.Context, name string) (string, error) {
	var rt string
	for _, r := range ContainerRuntimes {
		if p, err := exec.LookPath(r); err == nil {
			rt = p
			break
		}
	}
	if rt == "" {
		return "", fmt.Errorf("monitor: container %s: no container runtime here (found neither %s on PATH); watch its cgroup or its main process instead",
			name, strings.Join(ContainerRuntimes, " nor "))
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, rt, "inspect", "--format", "{{.State.Pid}}", name)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("monitor: container %s: %s inspect failed: %v %s", name, filepath.Base(rt), err, strings.TrimSpace(stderr.String()))
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || pid <= 0 {
		return "", fmt.Errorf("monitor: container %s: %s says its main process is %q: want a running container", name, filepath.Base(rt), strings.TrimSpace(string(out)))
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return "", fmt.Errorf("monitor: container %s: reading the cgroup of its process %d: %v", name, pid, err)
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "0::"); ok {
			return filepath.Join("/sys/fs/cgroup", rest), nil
		}
	}
	return "", fmt.Errorf("monitor: container %s: its process %d is in no cgroup v2; watch its main process %d instead", name, pid, pid)
}
