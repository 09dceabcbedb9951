package httpx

import (
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
)

// A header value with a line break is refused naming the header and the line break's place,
// never the value: it may be a secret (an Authorization header, a token).
func TestBadHeaderValueErrorHidesTheValue(t *testing.T) {
	t.Parallel()
	tr := newTransport(t, Options{})
	for _, tc := range []struct {
		value string
		at    string
	}{{"Bearer s3cr3t\r\nX: 1", "byte 14"}, {"s3cr3t\n", "byte 7"}} {
		r := transport.Request{Scheme: "http", Host: "127.0.0.1:1", Header: []transport.Header{{Name: "Authorization", Value: tc.value}}}
		out := do(tr, &r)
		if out.Class != result.Other || out.Err == nil || out.Opened {
			t.Fatalf("%q: class %v, err %v, opened %v; want other, nothing sent", tc.value, out.Class, out.Err, out.Opened)
		}
		if e := out.Err.Error(); strings.Contains(e, "s3cr3t") || !strings.Contains(e, `"Authorization"`) || !strings.Contains(e, tc.at) {
			t.Errorf("%q: %q; want the header named, %s, and not the value", tc.value, e, tc.at)
		}
	}
}
