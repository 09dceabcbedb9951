package cli

import (
	"golang.org/x/term"
)

func isTerminalFd(fd uintptr) bool { return term.IsTerminal(int(fd)) }
