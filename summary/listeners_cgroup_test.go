package summary

import (
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/result"
)

// A listener no watch by PID or name counted is foreign, unless a cgroup is watched too: the
// cgroup keeps no PIDs, and the listener may be in it.
func TestAnsweredElsewhereWithACgroup(t *testing.T) {
	byName := result.Resources{Target: "process envoy", Listeners: []result.Listener{{Addr: "127.0.0.1:8080", PID: 500, Comm: "server"}}}
	if reason, _ := answeredElsewhere([]result.Resources{byName}); !strings.Contains(reason, "the target answered from pid 500 (server) on 127.0.0.1:8080") {
		t.Errorf("a name watched, another process listening: reason %q; want pid 500 named", reason)
	}
	cg := result.Resources{Target: "cgroup /sys/fs/cgroup/system.slice/server.service"}
	if reason, caveat := answeredElsewhere([]result.Resources{cg, byName}); reason != "" || caveat != "" {
		t.Errorf("a cgroup watched beside the name: reason %q, caveat %q; want neither", reason, caveat)
	}
}
