package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/serve/lab"
)

// Secrets never reach what rpcbench writes: an Authorization header, a key-like header, a URL's
// password and an api_key query value are REDACTED in every report format, the result file, the
// HTML page, the live lines, a report re-rendered from the file and the error of a bad URL — unless
// --show-secrets.
func TestSecretsRedactedEverywhere(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{})
	secrets := []string{"s3cr3tBearer", "t0kenValue", "pw0rdSecret", "k3yValue"}
	url := strings.Replace(srv.URL(), "http://", "http://alice:pw0rdSecret@", 1) + "/a?api_key=k3yValue&page=1"
	dir := t.TempDir()
	rb, html, live := filepath.Join(dir, "run.rb"), filepath.Join(dir, "run.html"), filepath.Join(dir, "live.jsonl")
	check := func(what, text string, wantSecrets bool) {
		t.Helper()
		for _, sec := range secrets {
			if strings.Contains(text, sec) != wantSecrets {
				t.Errorf("%s: holds %q: %v; want %v", what, sec, !wantSecrets, wantSecrets)
			}
		}
	}
	args := []string{"run", "--requests", "3", "--connections", "1", "--quiet", "-H", "Authorization: Bearer s3cr3tBearer",
		"-H", "X-Api-Token: t0kenValue", "--out", rb, "--html", html, "--live", live, "--format", "json", url}
	code, stdout, stderr := mainOut(args...)
	if code != ExitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	check("run's JSON report", stdout, false)
	check("run's stderr", stderr, false)
	for _, f := range []string{rb, html, live} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		check(filepath.Base(f), string(b), false)
	}
	if !strings.Contains(stdout, "REDACTED") {
		t.Errorf("run's JSON report says nothing was redacted:\n%.400s", stdout)
	}
	for _, format := range []string{"text", "json", "csv", "markdown", "html", "hgrm"} {
		code, out, stderr := mainOut("report", "--format", format, rb)
		if code != ExitOK {
			t.Fatalf("report --format %s: exit %d\n%s", format, code, stderr)
		}
		check("report --format "+format, out, false)
	}
	// a bad URL's error
	bad := strings.Replace(url, srv.URL()[len("http://"):], "127.0.0.1:99999", 1)
	code, _, stderr = mainOut("run", "--requests", "1", bad)
	if code != ExitUsage {
		t.Errorf("bad URL: exit %d; want %d", code, ExitUsage)
	}
	check("a bad URL's error", stderr, false)
	// asked for (the URL's password goes as Basic authorization, base64-encoded)
	secrets = []string{"s3cr3tBearer", "t0kenValue", "k3yValue"}
	code, stdout, stderr = mainOut("run", "--show-secrets", "--requests", "1", "--quiet", "-H", "Authorization: Bearer s3cr3tBearer",
		"-H", "X-Api-Token: t0kenValue", "--format", "json", url)
	if code != ExitOK {
		t.Fatalf("run --show-secrets: exit %d\n%s", code, stderr)
	}
	check("run --show-secrets' JSON report", stdout, true)
}
