package planfile

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/rpcbench/rpcbench/monitor"
)

// profile reads a target's profile: {url: …}, the base of a Go target's net/http/pprof handlers
// (returned as monitor.ProfileURL writes it), or {command: …}, a profiler command.
func (f *fileReader) profile(n *yaml.Node, path string) (u, command string) {
	given := false
	f.mapping(n, path, []string{"url", "command"}, func(key string, k, v *yaml.Node) {
		kp := joinKey(path, key)
		if given {
			f.errorf(k, kp, "give url: (a Go target) or command: (a profiler), not both")
			return
		}
		given = true
		if key == "command" {
			if command = f.str(v, kp); !strings.Contains(command, "{out}") {
				f.errorf(v, kp, "%q does not write to {out}: want e.g. perf record -p {pid} -o {out} -- sleep {duration}", command)
			}
			return
		}
		var err error
		if u, err = monitor.ProfileURL(f.str(v, kp)); err != nil {
			f.errorf(v, kp, "%v", err)
		}
	})
	if !given && resolve(n).Kind == yaml.MappingNode {
		f.errorf(n, path, "no url: or command: want e.g. profile: {url: http://127.0.0.1:6060/debug/pprof} or profile: {command: \"perf record -p {pid} -o {out} -- sleep {duration}\"}")
	}
	return u, command
}
