//go:build unix

package cli

import (
	"os"
	"syscall"
)

// execProgram runs the program at path in place of this process, with argv and this environment;
// it returns only when it could not.
func execProgram(path string, argv []string) error {
	return syscall.Exec(path, argv, os.Environ())
}
