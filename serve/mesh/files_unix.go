//go:build unix

package mesh

import (
	"math"
	"syscall"
)

// openFileLimit is the process's soft limit on open files, or 0 if unknown or unlimited.
func openFileLimit() int {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil || r.Cur > math.MaxInt32 {
		return 0
	}
	return int(r.Cur)
}
