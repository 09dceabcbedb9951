package planfile

import (
	"strings"
	"testing"
)

// A target's profile: {url: …} is read as the base of its pprof handlers; a bad one is an error at
// its line.
func TestReadProfile(t *testing.T) {
	t.Parallel()
	tail := "scenarios:\n  s: {rate: 10}\n"
	b, err := ReadFile("plan.yaml", strings.NewReader("targets:\n  t:\n    url: http://127.0.0.1:1/\n    profile: {url: http://127.0.0.1:6060}\n"+tail))
	if err != nil || b.Targets[0].ProfileURL != "http://127.0.0.1:6060/debug/pprof" {
		t.Fatalf("%v, %+v; want the pprof base http://127.0.0.1:6060/debug/pprof", err, b)
	}
	for body, want := range map[string]string{
		"    profile: {url: ftp://127.0.0.1:6060}\n": `plan.yaml:4:20: targets.t.profile.url: want the http:// or https:// URL of a Go program's /debug/pprof`,
		"    profile: {}\n":                          "plan.yaml:4:14: targets.t.profile: no url: want e.g. profile: {url: http://127.0.0.1:6060/debug/pprof}",
		"    profile: {uri: http://x/}\n":            `targets.t.profile.uri: unknown key`,
	} {
		_, err := ReadFile("plan.yaml", strings.NewReader("targets:\n  t:\n    url: http://127.0.0.1:1/\n"+body+tail))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want an error with %q", body, err, want)
		}
	}
}
