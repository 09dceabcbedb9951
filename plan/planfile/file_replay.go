package planfile

import (
	"regexp"
	"strings"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/replay"

	"go.yaml.in/yaml/v3"
)

var replayKeys = []string{"files", "format", "log_format", "speed", "rate", "loop", "every", "sample", "seed",
	"include", "exclude", "drop_header", "expect_recorded_status"}

// replayWith are the keys of a scenario that go with replay: how the recorded requests travel and
// are judged. The recording says what is sent, and when.
var replayWith = []string{"replay", "header", "connections", "timeout", "connect_timeout", "insecure", "no_reuse",
	"tls", "grace", "checks", "slo", "require_valid", "stats"}

func (f *fileReader) replay(n *yaml.Node, path string) *plan.ScenarioReplay {
	r := &plan.ScenarioReplay{}
	var logFormat *yaml.Node
	f.mapping(n, path, replayKeys, func(key string, k, v *yaml.Node) {
		kp := joinKey(path, key)
		switch key {
		case "files":
			if r.Files = f.strings(v, kp); len(r.Files) == 0 {
				f.errorf(v, kp, "empty: want the recording's files, e.g. [access.log.1, access.log]")
			}
			for i, name := range r.Files {
				if name == plan.Stdin {
					f.errorf(v, kp, "file %d is -: standard input cannot be replayed (a replay reads its files once per target and once more to send); name a file", i+1)
				}
			}
		case "format":
			r.Format = f.choice(v, kp, replay.Formats...)
		case "log_format":
			logFormat = v
			if s, ok := f.scalar(v, kp, "an access log's layout"); ok && s == "" {
				f.errorf(v, kp, `empty: want an access log's layout in nginx's log_format syntax, e.g. '$remote_addr [$time_local] "$request" $status'`)
			} else if ok {
				r.Format = "log_format:" + s
			}
		case "speed":
			told := len(f.errs)
			if r.Speed = f.number(v, kp); r.Speed == 0 && len(f.errs) == told { // a 0, not a mistake told already
				f.errorf(v, kp, "want a number above 0 (2: twice as fast, 0.5: half as fast)")
			}
		case "rate":
			r.Rate = f.positiveRate(v, kp)
		case "loop":
			r.Loop = f.count(v, kp)
		case "every":
			r.Every = uint64(f.count(v, kp))
		case "sample":
			if r.Sample = f.number(v, kp); r.Sample > 1 {
				f.errorf(v, kp, "%v: want a fraction from 0 to 1, e.g. 0.1", r.Sample)
			}
		case "seed":
			r.Seed = uint64(f.count(v, kp))
		case "include", "exclude":
			s := f.str(v, kp)
			if _, err := regexp.Compile(s); err != nil {
				f.errorf(v, kp, "%q: %v", s, err)
			}
			if key == "include" {
				r.Include = s
			} else {
				r.Exclude = s
			}
		case "drop_header":
			r.DropHeaders = f.strings(v, kp)
		case "expect_recorded_status":
			r.RecordedStatus = f.boolean(v, kp)
		}
	})
	n = resolve(n)
	if n.Kind == yaml.MappingNode && r.Files == nil && !f.has(n, "files") {
		f.errorf(n, path, "no files: want the recording's files, e.g. files: [access.log]")
	}
	if logFormat != nil && f.has(n, "format") {
		f.errorf(logFormat, joinKey(path, "log_format"), "both format: and log_format: give one of them (a log_format is an access log's)")
	}
	if r.Rate > 0 && r.Speed > 0 {
		f.errorf(n, path, "both speed: and rate: give one of them (rate: sends in recorded order at a constant rate)")
	}
	if r.Sample > 0 && r.Seed == 0 {
		r.Seed = 1 // as `rpcbench replay --seed` defaults
	}
	return r
}

// has reports whether the mapping n has key.
func (f *fileReader) has(n *yaml.Node, key string) bool {
	for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}

// checkReplay checks what goes with replay: the recording says what is sent and when, so the
// keys that say it too are errors at the key.
func (f *fileReader) checkReplay(n *yaml.Node, path string, s *plan.Scenario) {
	if s.Replay == nil || n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		switch {
		case !contains(replayWith, k.Value):
			f.errorf(k, joinKey(path, k.Value), "a replay sends the recorded requests at their recorded times: drop %s here (with replay: give only %s)",
				k.Value, strings.Join(replayWith[1:], ", "))
		case k.Value == "checks" && s.Replay.RecordedStatus && s.Plan.Checks.Status != "":
			f.errorf(k, joinKey(path, "checks.status"), "both checks.status and replay.expect_recorded_status: give one of them")
		}
	}
}
