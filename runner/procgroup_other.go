//go:build !unix

package runner

import (
	"os"
	"os/exec"
)

// ownGroup interrupts the command alone where process groups are not at hand.
func ownGroup(c *exec.Cmd) { c.Cancel = func() error { return c.Process.Signal(os.Interrupt) } }

// killGroup does nothing where process groups are not at hand.
func killGroup(*exec.Cmd) {}
