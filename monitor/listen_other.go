//go:build !linux

package monitor

import "net"

// Listeners returns ErrUnsupported: finding a socket's process needs Linux's /proc.
func Listeners(net.IP, int) (Listening, error) { return Listening{}, ErrUnsupported }

// Descendants returns ErrUnsupported: the process tree is read from Linux's /proc.
func Descendants(...int) ([]int, error) { return nil, ErrUnsupported }
