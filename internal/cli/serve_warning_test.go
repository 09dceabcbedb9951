package cli

import (
	"strings"
	"testing"
)

// serve warns, on stderr, when --addr is not a loopback address: the built-in services have no
// authentication. Only the decision and its text are tested: no test binds a non-loopback address.
func TestServeWarnsOfANonLoopbackAddress(t *testing.T) {
	t.Parallel()
	const local = " Give --addr 127.0.0.1:8080 to keep them to this machine."
	for _, tc := range []struct {
		addr, want string // want "": no warning
	}{
		{"127.0.0.1:8080", ""},
		{"127.1.2.3:8080", ""},
		{"[::1]:8080", ""},
		{"[::ffff:127.0.0.1]:8080", ""},
		{"localhost:8080", ""},
		{"LocalHost:8080", ""},
		{":8080", "--addr :8080 listens on every interface of this machine: the built-in services have no authentication, so anyone who can reach its port can use them." + local},
		{"0.0.0.0:8080", "--addr 0.0.0.0:8080 listens on every interface of this machine: the built-in services have no authentication, so anyone who can reach its port can use them." + local},
		{"[::]:8080", "--addr [::]:8080 listens on every interface of this machine: the built-in services have no authentication, so anyone who can reach its port can use them." + local},
		{"192.168.1.20:8080", "--addr 192.168.1.20:8080 is not a loopback address: the built-in services have no authentication, so anyone who can reach 192.168.1.20 can use them." + local},
		{"[fe80::1]:8080", "--addr [fe80::1]:8080 is not a loopback address: the built-in services have no authentication, so anyone who can reach fe80::1 can use them." + local},
		{"bench.example:8080", "--addr bench.example:8080 names a host, not a loopback address: the built-in services have no authentication, so if bench.example leads to an address other machines reach, they can use them." + local},
	} {
		if got := exposedWarning(tc.addr); got != tc.want {
			t.Errorf("exposedWarning(%q) = %q; want %q", tc.addr, got, tc.want)
		}
	}
	var stderr strings.Builder
	warnExposed(&stderr, "lab", ":0")
	if want := "rpcbench serve lab: warning: --addr :0 listens on every interface of this machine: the built-in services have no authentication, so anyone who can reach its port can use them. Give --addr 127.0.0.1:0 to keep them to this machine.\n"; stderr.String() != want {
		t.Errorf("warning %q; want %q", stderr.String(), want)
	}
	stderr.Reset()
	warnExposed(&stderr, "lab", "127.0.0.1:0")
	if stderr.Len() != 0 {
		t.Errorf("warning %q for a loopback address; want none", stderr.String())
	}
}

// --h3-addr off loopback is warned about as --addr is, naming its own flag.
func TestServeH3AddrWarning(t *testing.T) {
	var out, errb strings.Builder
	sayH3(&serveEnv{Out: &out, Err: &errb}, "lab", "0.0.0.0:8443", false)
	if want := "rpcbench serve lab: warning: --h3-addr 0.0.0.0:8443 listens on every interface of this machine: the built-in services have no authentication, so anyone who can reach its port can use them. Give --h3-addr 127.0.0.1:8443 to keep them to this machine.\n"; !strings.Contains(errb.String(), want) {
		t.Errorf("stderr %q; want %q", errb.String(), want)
	}
	errb.Reset()
	sayH3(&serveEnv{Out: &out, Err: &errb}, "lab", "127.0.0.1:8443", false)
	if strings.Contains(errb.String(), "warning: --h3-addr") {
		t.Errorf("a loopback --h3-addr warned: %q", errb.String())
	}
}
