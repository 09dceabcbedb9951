package h2_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/transport"
	"github.com/rpcbench/rpcbench/transport/h2"
)

// A header value HTTP/2 cannot carry is refused naming the header and the offending byte's
// place, never the value: it may be a secret (an Authorization header, a token).
func TestBadHeaderValueErrorHidesTheValue(t *testing.T) {
	t.Parallel()
	tr := newTransport(t, h2.Options{Cleartext: true})
	for _, tc := range []struct {
		value string
		at    string
	}{{"Bearer s3cr3t\r\nX: 1", "byte 14"}, {"s3cr3t\x01", "byte 7"}, {"\x7fs3cr3t", "byte 1"}} {
		r := &transport.Request{Method: "GET", Scheme: "http", Host: "127.0.0.1:1", Path: []byte("/"),
			Header: []transport.Header{{Name: "Authorization", Value: tc.value}}}
		var out transport.Outcome
		tr.Do(context.Background(), r, &out)
		if out.Class != result.Other || out.Err == nil || out.Opened {
			t.Fatalf("%q: class %v, err %v, opened %v; want other, nothing opened", tc.value, out.Class, out.Err, out.Opened)
		}
		if e := out.Err.Error(); strings.Contains(e, "s3cr3t") || !strings.Contains(e, `"Authorization"`) || !strings.Contains(e, tc.at) {
			t.Errorf("%q: %q; want the header named, %s, and not the value", tc.value, e, tc.at)
		}
	}
}
