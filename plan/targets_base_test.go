package plan

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestJoinURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ base, path, want string }{
		{"http://h:1/", "", "http://h:1/"},
		{"http://h:1/", "/a?b=1", "http://h:1/a?b=1"},
		{"http://h:1/api", "v0", "http://h:1/api/v0"},
		{"http://h:1/api/", "?x=1", "http://h:1/api/?x=1"},
		{"http://h:1/", "http://other:2/x", "http://other:2/x"},
	} {
		if got := JoinURL(tc.base, tc.path); got != tc.want {
			t.Errorf("JoinURL(%q, %q) = %q; want %q", tc.base, tc.path, got, tc.want)
		}
	}
}

// A plan's target file is resolved against the target's URL: its paths are joined to it; its
// absolute URLs must name the target's scheme and host (in any case, with or without user-info),
// and another host is refused, or with rewrite_host gets the target's scheme, user-info and host.
func TestRelativeTargetFile(t *testing.T) {
	t.Parallel()
	base := urlBase{url: "http://u:p@h:1/base"}
	text := "GET /a\n\nGET HTTP://H:1/c?d=1\n\nPOST http://x:y@h:1/e\n\nPOST http://other:2/b?q={{seq}}\n"
	jsonl := `{"url":"/a"}` + "\n" + `{"url":"HTTP://H:1/c?d=1"}` + "\n" + `{"method":"POST","url":"http://x:y@h:1/e"}` + "\n" + `{"method":"POST","url":"http://other:2/b?q={{seq}}"}` + "\n"
	for _, tt := range []struct {
		in, line string
	}{{text, "7"}, {jsonl, "4"}} {
		in := tt.in
		if _, err := readTargets(OSFiles(nil), "t", strings.NewReader(in), "", ".", base); err == nil ||
			err.Error() != `plan: t:`+tt.line+`: http://other:2/b?q={{seq}} names http://other:2, not the target's http://h:1: a run against a target goes to that target; `+
				`write the path alone ("POST /…"), or set rewrite_host: true to send the file's requests to each target's host` {
			t.Errorf("another host: got %v; want a refusal at line %s (entry 4) naming both hosts", err, tt.line)
		}
		base.rewrite = true
		tg, err := readTargets(OSFiles(nil), "t", strings.NewReader(in), "", ".", base)
		base.rewrite = false
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"http://u:p@h:1/base/a", "HTTP://H:1/c?d=1", "http://x:y@h:1/e", "http://u:p@h:1/b?q={{seq}}"}
		var got []string
		for _, e := range tg.Entries {
			got = append(got, e.URL)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("rewrite_host: URLs %q; want %q", got, want)
		}
		// without a base (run --targets), URLs are taken as written, as vegeta takes them
		tg, err = readTargets(OSFiles(nil), "t", strings.NewReader(strings.ReplaceAll(in, "/a", "http://h:1/a")), "", ".", urlBase{})
		if err != nil || tg.Entries[3].URL != "http://other:2/b?q={{seq}}" {
			t.Errorf("no base: %v, %+v; want the URLs as written", err, tg)
		}
	}
	if _, err := readTargets(OSFiles(nil), "t.http", strings.NewReader("GET /a\n"), "", ".", urlBase{}); err == nil {
		t.Error("a relative URL without a base: got no error")
	}
}

// A scenario with rewrite_host says, in its description (bench --dry-run), which files' URLs go
// to each target.
func TestDescribeRewriteHost(t *testing.T) {
	t.Parallel()
	s := Scenario{Plan: Plan{Traffic: Traffic{Targets: "t.jsonl", Setup: "s.http", RewriteHost: true}, Load: Load{Rate: 200, Duration: 10 * time.Second}}}
	want := "open model, 200/s, 10s measured; the URLs of t.jsonl and s.http go to the scheme and host of each target (rewrite_host)"
	if got := s.Describe(0, false); got != want {
		t.Errorf("Describe: %q; want %q", got, want)
	}
	s.Plan.Traffic.Setup, s.Plan.Traffic.RewriteHost = "", false
	if got := s.Describe(0, false); got != "open model, 200/s, 10s measured" {
		t.Errorf("Describe without rewrite_host: %q; want no note", got)
	}
}
