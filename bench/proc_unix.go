//go:build unix

package bench

import (
	"os/exec"
	"syscall"
)

// setGroup starts c in a process group of its own.
func setGroup(c *exec.Cmd) { c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// signalGroup sends SIGTERM (or SIGKILL) to c's process group.
func signalGroup(c *exec.Cmd, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	if c.Process != nil {
		_ = syscall.Kill(-c.Process.Pid, sig)
	}
}
