//go:build unix

package runner

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the command in a process group of its own, so that its interrupt and kill reach
// every process it started (a profiler under `sh -c "…; gzip {out}"`), not the shell alone.
func ownGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGINT) }
}

// killGroup kills what is left of the command's process group once the command has ended.
func killGroup(c *exec.Cmd) {
	if c.Process != nil {
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL) //nolint:errcheck // nothing left: nothing to kill
	}
}
