//go:build linux

package monitor

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
)

// tcpListen is the state of a listening socket in /proc/net/tcp{,6} (TCP_LISTEN).
const tcpListen = 0x0A

// Listeners finds the processes holding a TCP socket that listens on port at ip, or at the
// wildcard address (which takes ip's connections too): the sockets from /proc/net/tcp and
// /proc/net/tcp6 by their inode, their holders from each process's /proc/PID/fd.
func Listeners(ip net.IP, port int) (Listening, error) {
	pfs, err := procfs.NewFS(procfs.DefaultMountPoint)
	if err != nil {
		return Listening{}, fmt.Errorf("monitor: %w", err)
	}
	inodes := map[uint64]bool{}
	for _, read := range []func() (procfs.NetTCP, error){pfs.NetTCP, pfs.NetTCP6} {
		lines, err := read()
		if err != nil {
			continue // no IPv6 (or no IPv4) in this kernel
		}
		for _, l := range lines {
			if l.St == tcpListen && l.LocalPort == uint64(port) && (l.LocalAddr.IsUnspecified() || l.LocalAddr.Equal(ip)) {
				inodes[l.Inode] = true
			}
		}
	}
	var out Listening
	if len(inodes) == 0 {
		return out, nil
	}
	procs, err := pfs.AllProcs()
	if err != nil {
		return Listening{}, fmt.Errorf("monitor: listing processes: %w", err)
	}
	found := map[uint64]bool{}
	for _, p := range procs {
		targets, err := p.FileDescriptorTargets()
		if err != nil {
			continue // another user's, or gone
		}
		holds := false
		for _, t := range targets {
			n, ok := strings.CutPrefix(t, "socket:[")
			if !ok {
				continue
			}
			ino, err := strconv.ParseUint(strings.TrimSuffix(n, "]"), 10, 64)
			if err == nil && inodes[ino] {
				found[ino], holds = true, true
			}
		}
		if holds {
			comm, _ := p.Comm()
			out.Procs = append(out.Procs, Listener{PID: p.PID, Comm: comm})
		}
	}
	out.Hidden = len(inodes) - len(found)
	slices.SortFunc(out.Procs, func(a, b Listener) int { return a.PID - b.PID })
	return out, nil
}

// Descendants returns the processes of roots that run now and all the processes below them.
func Descendants(roots ...int) ([]int, error) {
	pfs, err := procfs.NewFS(procfs.DefaultMountPoint)
	if err != nil {
		return nil, fmt.Errorf("monitor: %w", err)
	}
	procs, err := pfs.AllProcs()
	if err != nil {
		return nil, fmt.Errorf("monitor: listing processes: %w", err)
	}
	return descendants(procs, roots), nil
}
