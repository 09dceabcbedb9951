package cli

import (
	"bytes"
	"strings"
	"testing"
)

// cliCase is one command line and what it must return and print.
type cliCase struct {
	name       string
	args       []string
	wantCode   int
	wantStdout []string // each must appear in stdout
	wantStderr []string // each must appear in stderr
}

// runCLICases runs Main with prefix followed by each case's args, in parallel subtests.
func runCLICases(t *testing.T, prefix []string, cases []cliCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			args := append(append([]string(nil), prefix...), tt.args...)
			code := Main(args, strings.NewReader(""), &out, &errb)
			if code != tt.wantCode {
				t.Fatalf("got exit %d; want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, out.String(), errb.String())
			}
			for _, w := range tt.wantStdout {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range tt.wantStderr {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errb.String())
				}
			}
		})
	}
}
