package transport_test

import (
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/transport/h2"
	"github.com/rpcbench/rpcbench/transport/h3"
)

// HTTP/2's and HTTP/3's options check their shared limits alike, every problem at once, each
// message naming its transport and field; their zero values are ready.
func TestLimitsOfH2AndH3(t *testing.T) {
	t.Parallel()
	want := func(pkg string) string {
		return pkg + ": Timeout -1ns is negative; use 0 for the default or a positive duration\n" +
			pkg + ": ConnectTimeout -2s is negative; use 0 for the default or a positive duration\n" +
			pkg + ": MaxConns -1 is negative; use 0 for the default or a positive number\n" +
			pkg + ": Streams -2 is negative; use 0 for the default or a positive number\n" +
			pkg + ": MaxBody -3 is negative; use 0 for the default or a positive number\n" +
			pkg + `: UserAgent "a\r\nb" holds a line break; use a single line`
	}
	for _, c := range []struct {
		pkg       string
		bad, zero func() error
	}{
		{"h2", func() error {
			return (&h2.Options{Timeout: -1, ConnectTimeout: -2 * time.Second, MaxConns: -1, Streams: -2, MaxBody: -3, UserAgent: "a\r\nb"}).Validate()
		}, (&h2.Options{}).Validate},
		{"h3", func() error {
			return (&h3.Options{Timeout: -1, ConnectTimeout: -2 * time.Second, MaxConns: -1, Streams: -2, MaxBody: -3, UserAgent: "a\r\nb"}).Validate()
		}, (&h3.Options{}).Validate},
	} {
		if err := c.bad(); err == nil || err.Error() != want(c.pkg) {
			t.Errorf("%s: got %v; want\n%s", c.pkg, err, want(c.pkg))
		}
		if err := c.zero(); err != nil {
			t.Errorf("%s: the zero Options: %v; want none", c.pkg, err)
		}
	}
	if _, err := h3.New(h3.Options{Streams: -1}); err == nil {
		t.Errorf("h3.New with Streams -1 made a transport; want the error")
	}
}
