//go:build !linux

package monitor

import (
	"context"
	"fmt"
)

// NewSampler checks that target exists now — the PIDs are running, the name matches a process, the
// container runs — and returns a Sampler that reads processes through gopsutil and a container
// through the stats of the Docker Engine API that answered for it (Docker Desktop's on macOS and
// Windows). A cgroup needs Linux: ErrUnsupported.
func NewSampler(target Target) (*Sampler, error) {
	if err := target.Validate(); err != nil {
		return nil, err
	}
	if target.Kind != KindContainer {
		return newGopsSampler(target)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*dockerTimeout)
	defer cancel()
	dir, c, err := resolveContainer(ctx, target.Container)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, fmt.Errorf("monitor: container %s: its cgroup %s: %w", target.Container, dir, ErrUnsupported)
	}
	return newContainerSampler(target, c), nil
}
