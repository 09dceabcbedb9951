//go:build !unix

package cli

import "errors"

// execProgram cannot replace the process here: the caller runs the program as a child instead.
func execProgram(path string, argv []string) error { return errors.ErrUnsupported }
