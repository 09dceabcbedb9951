//go:build !linux

package httpx

import "net"

// peeker is a no-op where no peek is wired up: an idle connection the server closed is found out
// when a request on it fails, and retried as net/http does.
type peeker struct{}

func (p *peeker) init(net.Conn) {}

func (p *peeker) stale() bool { return false }
