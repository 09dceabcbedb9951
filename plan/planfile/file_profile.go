package planfile

import (
	"go.yaml.in/yaml/v3"

	"github.com/rpcbench/rpcbench/monitor"
)

// profile reads a target's profile: {url: …}, the base of a Go target's net/http/pprof handlers,
// and returns it as monitor.ProfileURL writes it.
func (f *fileReader) profile(n *yaml.Node, path string) string {
	var u string
	given := false
	f.mapping(n, path, []string{"url"}, func(key string, k, v *yaml.Node) {
		kp := joinKey(path, key)
		given = true
		var err error
		if u, err = monitor.ProfileURL(f.str(v, kp)); err != nil {
			f.errorf(v, kp, "%v", err)
		}
	})
	if !given && resolve(n).Kind == yaml.MappingNode {
		f.errorf(n, path, "no url: want e.g. profile: {url: http://127.0.0.1:6060/debug/pprof}")
	}
	return u
}
