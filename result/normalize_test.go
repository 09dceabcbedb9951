package result

import "testing"

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"dial tcp 127.0.0.1:8080: connect: connection refused", "dial tcp ADDR: connect: connection refused"},
		{"read tcp 127.0.0.1:51234->127.0.0.1:80: read: connection reset by peer", "read tcp ADDR->ADDR: read: connection reset by peer"},
		{"dial tcp [::1]:9000: connect: connection refused", "dial tcp ADDR: connect: connection refused"},
		{"request 7f3a9c21 failed after 1234 bytes", "request N failed after N bytes"},
		{"tls: handshake failure", "tls: handshake failure"},
		{"http2 is not tls13", "http2 is not tls13"}, // digits inside words stay
		{"i/o timeout", "i/o timeout"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"dial tcp 127.0.0.1:8080: x", "[::1]:1", "[", "deadbeef", "1.2.3", ":::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Normalize(s)
		if Normalize(n) != n {
			t.Fatalf("Normalize is not idempotent on %q: %q then %q", s, n, Normalize(n))
		}
	})
}
