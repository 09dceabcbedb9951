package transport

import (
	"fmt"
	"strings"
	"time"
)

// Limits are the settings that the transports multiplexing requests on their own pool of
// connections (HTTP/2's and HTTP/3's Options) share, so that both check them alike: 0 is the
// default of each.
type Limits struct {
	Timeout, ConnectTimeout time.Duration
	MaxConns, Streams       int
	MaxBody                 int64
	UserAgent               string
}

// Check returns every problem of l, each error naming the transport's package pkg ("h2") and the
// field: a negative time limit, connection cap, stream count or body size; a UserAgent that would
// break its header line.
func (l Limits) Check(pkg string) []error {
	var errs []error
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"Timeout", l.Timeout}, {"ConnectTimeout", l.ConnectTimeout}} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("%s: %s %v is negative; use 0 for the default or a positive duration", pkg, d.name, d.v))
		}
	}
	for _, n := range []struct {
		name string
		v    int64
	}{{"MaxConns", int64(l.MaxConns)}, {"Streams", int64(l.Streams)}, {"MaxBody", l.MaxBody}} {
		if n.v < 0 {
			errs = append(errs, fmt.Errorf("%s: %s %d is negative; use 0 for the default or a positive number", pkg, n.name, n.v))
		}
	}
	if strings.ContainsAny(l.UserAgent, "\r\n\x00") {
		errs = append(errs, fmt.Errorf("%s: UserAgent %q holds a line break; use a single line", pkg, l.UserAgent))
	}
	return errs
}
