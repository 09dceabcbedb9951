//go:build !linux

package monitor

import (
	"context"
	"fmt"
	"net"

	"github.com/shirou/gopsutil/v4/process"
)

// Listeners returns ErrUnsupported: finding a socket's process needs Linux's /proc.
func Listeners(net.IP, int) (Listening, error) { return Listening{}, ErrUnsupported }

// Descendants returns the processes of roots that run now and all the processes below them, as
// gopsutil lists them.
func Descendants(roots ...int) ([]int, error) {
	ctx := context.Background()
	procs, err := process.ProcessesWithContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("monitor: listing processes: %w", err)
	}
	return gopsDescendants(ctx, procs, roots), nil
}
