//go:build unix

package cli

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// filesMargin is the margin of descriptors a run needs besides one per connection.
const filesMargin = 64

// raiseOpenFiles raises the soft limit of open files to the hard limit and returns a note when the
// connections asked for still cannot fit.
func raiseOpenFiles(conns int) string {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return ""
	}
	if lim.Cur < lim.Max {
		raised := lim
		raised.Cur = lim.Max
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &raised); err == nil {
			lim = raised
		}
	}
	if need := uint64(conns) + filesMargin; need > lim.Cur {
		return fmt.Sprintf("%d connections need about %d open files, but the limit is %d (ulimit -n); connections past it will fail", conns, need, lim.Cur)
	}
	return ""
}
