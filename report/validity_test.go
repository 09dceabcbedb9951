package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/summary"
)

// Every format shows the verdict: text's first line, Markdown's line under the title, HTML's
// banner, each reason and caveat in full; a valid run says so.
func TestValidityInEveryFormat(t *testing.T) {
	t.Parallel()
	invalid := load(t, "testdata/one.rb")
	invalid.Validity = summary.Validity{Reasons: []string{"reason <one>", "reason two"}, Caveats: []string{"caveat & one"}}
	valid := load(t, "testdata/one.rb")
	valid.Validity = summary.Validity{Valid: true, Reasons: []string{}, Caveats: []string{}}
	out := func(s *summary.Summary, format string) string {
		var b bytes.Buffer
		if err := Render(&b, []*summary.Summary{s}, format, Options{}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	text := out(invalid, "text")
	if first, _, _ := strings.Cut(text, "\n"); first != "INVALID run: reason <one>; reason two" {
		t.Errorf("text's first line %q; want the verdict with both reasons", first)
	}
	if !strings.Contains(text, "\n  caveat: caveat & one\n") {
		t.Errorf("text has no caveat line:\n%s", text)
	}
	if first, _, _ := strings.Cut(out(valid, "text"), "\n"); first != "valid run" {
		t.Errorf("text's first line %q; want \"valid run\"", first)
	}
	md := out(invalid, "markdown")
	if !strings.Contains(md, "`\n\n**INVALID run**: reason <one>; reason two\n\n> caveat: caveat & one\n") {
		t.Errorf("markdown has no verdict under its title:\n%s", md)
	}
	if !strings.Contains(out(valid, "markdown"), "`\n\n**valid run**\n") {
		t.Errorf("markdown of a valid run does not say so")
	}
	page := out(invalid, "html")
	if !strings.Contains(page, `<div class="validity bad" role="status">`) || !strings.Contains(page, "<strong>INVALID run</strong>") ||
		!strings.Contains(page, "<li>reason &lt;one&gt;</li>") || !strings.Contains(page, "<li>caveat: caveat &amp; one</li>") {
		t.Errorf("HTML has no invalid banner with its reasons and caveat")
	}
	if page := out(valid, "html"); !strings.Contains(page, `<div class="validity" role="status">`) || !strings.Contains(page, "<strong>Valid run</strong>") {
		t.Errorf("HTML has no valid banner")
	}
	js := out(invalid, "json")
	if !strings.Contains(js, `"validity": {
    "valid": false,
    "reasons": [
      "reason \u003cone\u003e",
      "reason two"
    ],
    "caveats": [
      "caveat \u0026 one"
    ]
  }`) {
		t.Errorf("JSON has no validity object:\n%s", js)
	}
}
