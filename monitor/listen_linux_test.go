//go:build linux

package monitor

import (
	"net"
	"os"
	"slices"
	"testing"
)

// A socket this test listens on is found by its port and address, and held by this process; the
// same port at another address, a port nobody listens on and a connected (not listening) socket
// are not.
func TestListeners(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	client := c.LocalAddr().(*net.TCPAddr).Port
	self := Listener{PID: os.Getpid(), Comm: comm(t)}
	for _, tc := range []struct {
		name string
		ip   string
		port int
		want []Listener
	}{
		{"its address", "127.0.0.1", port, []Listener{self}},
		{"another address", "127.0.0.2", port, nil},
		{"the client's port", "127.0.0.1", client, nil},
	} {
		got, err := Listeners(net.ParseIP(tc.ip), tc.port)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Procs, tc.want) || got.Hidden != 0 {
			t.Errorf("%s (%s:%d): got %+v; want %+v", tc.name, tc.ip, tc.port, got, tc.want)
		}
	}
}

// A socket listening on [::1] (from /proc/net/tcp6) is found for ::1, not for 127.0.0.1.
func TestListenersIPv6(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skip("no IPv6 loopback:", err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	for ip, want := range map[string]int{"::1": 1, "127.0.0.1": 0} {
		got, err := Listeners(net.ParseIP(ip), port)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Procs) != want || want == 1 && got.Procs[0].PID != os.Getpid() {
			t.Errorf("%s: got %+v; want %d process(es), this one", ip, got, want)
		}
	}
}

func comm(t *testing.T) string {
	b, err := os.ReadFile("/proc/self/comm")
	if err != nil {
		t.Fatal(err)
	}
	return string(b[:len(b)-1])
}
