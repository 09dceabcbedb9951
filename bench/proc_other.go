//go:build !unix

package bench

import (
	"os"
	"os/exec"
)

func setGroup(*exec.Cmd) {}

// signalGroup interrupts (or kills) c; without process groups its children are left to it.
func signalGroup(c *exec.Cmd, kill bool) {
	if c.Process == nil {
		return
	}
	if kill {
		_ = c.Process.Kill()
		return
	}
	_ = c.Process.Signal(os.Interrupt)
}
