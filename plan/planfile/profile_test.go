package planfile

import (
	"strings"
	"testing"
)

// A target's profile: {url: …} is read as the base of its pprof handlers, profile: {command: …}
// as a profiler command; a bad one is an error at its line.
func TestReadProfile(t *testing.T) {
	t.Parallel()
	head, tail := "targets:\n  t:\n    url: http://127.0.0.1:1/\n", "scenarios:\n  s: {rate: 10}\n"
	b, err := ReadFile("plan.yaml", strings.NewReader(head+"    profile: {url: http://127.0.0.1:6060}\n"+tail))
	if err != nil || b.Targets[0].ProfileURL != "http://127.0.0.1:6060/debug/pprof" {
		t.Fatalf("%v, %+v; want the pprof base http://127.0.0.1:6060/debug/pprof", err, b)
	}
	perf := "perf record -p {pid} -o {out} -- sleep {duration}"
	b, err = ReadFile("plan.yaml", strings.NewReader(head+"    monitor: {pid: 7}\n    profile: {command: \""+perf+"\"}\n"+tail))
	if err != nil || b.Targets[0].ProfileCommand != perf || b.Targets[0].ProfileURL != "" {
		t.Fatalf("%v, %+v; want the profiler command as written", err, b)
	}
	for body, want := range map[string]string{
		"    profile: {url: ftp://127.0.0.1:6060}\n": `plan.yaml:4:20: targets.t.profile.url: want the http:// or https:// URL of a Go program's /debug/pprof`,
		"    profile: {}\n":                          "plan.yaml:4:14: targets.t.profile: no url: or command: want e.g. profile: {url: http://127.0.0.1:6060/debug/pprof} or profile: {command:",
		"    profile: {uri: http://x/}\n":            `targets.t.profile.uri: unknown key`,
		"    profile: {url: http://127.0.0.1:6060, command: \"py-spy record -o {out}\"}\n": "plan.yaml:4:43: targets.t.profile.command: give url: (a Go target) or command: (a profiler), not both",
		"    profile: {command: \"perf record -p {pid}\"}\n":                               `plan.yaml:4:24: targets.t.profile.command: "perf record -p {pid}" does not write to {out}`,
		"    profile: {command: \"" + perf + "\"}\n":                                       "plan.yaml:4:14: targets.t.profile.command: {pid} of which process: give the target a command: (its process is the pid) or monitor: {pid: N}",
	} {
		_, err := ReadFile("plan.yaml", strings.NewReader(head+body+tail))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want an error with %q", body, err, want)
		}
	}
}
