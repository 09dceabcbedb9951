package diff

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/tools/jsondiff"
)

func TestWriteHTML(t *testing.T) {
	t.Parallel()
	long := `"` + strings.Repeat("ab", 400) + `"`
	r := Report{
		Servers: []string{"http://127.0.0.1:1/", "http://127.0.0.1:2/"}, Reference: "http://127.0.0.1:1/",
		Requests: 3, Equal: 1, Different: 1, Failed: 1,
		Methods: []Method{{Name: "eth_call", Sent: 3, Equal: 1, Different: 1, Errors: []int{0, 1}}},
		Latency: []Latency{{URL: "http://127.0.0.1:1/", Answers: 3, MeanMS: 1.5, P50MS: 1.25, P90MS: 2, P99MS: 12.5, MaxMS: 1500}},
		Mismatches: []Mismatch{
			{ID: 2, Method: "eth_call", Where: "calls.jsonl:2", Servers: []ServerDiff{{URL: "http://127.0.0.1:2/", Diffs: []jsondiff.Difference{
				{Path: "result", Kind: jsondiff.Changed, TypeA: "string", TypeB: "string", A: `"</td><script>x</script>"`, B: long},
			}}}},
			{ID: 3, Method: "eth_call", Servers: []ServerDiff{{URL: "http://127.0.0.1:2/", Class: "timeout", Error: "no answer in 1s"}}},
		},
		More: 4,
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"1 of 3 requests differ, 1 failed",
		// errors on B, counted in the method's row
		`<td><code>eth_call</code></td><td>3</td><td>1</td><td class="bad">1</td><td>0</td><td class="bad">1</td>`,
		// latency: 1.25 ms, 12.5 ms, 1.5 s as the text report writes them
		"<td>1.25ms</td><td>2.00ms</td><td>12.5ms</td><td>1.50s</td>",
		"Differences (2 shown of 6)",
		"#2 <code>eth_call</code> <span class=\"hint\">calls.jsonl:2</span>",
		"no answer: timeout</span> no answer in 1s",
		// a value cut at 300 bytes
		`&#34;` + strings.Repeat("ab", 149) + "a…",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("no %q in the page:\n%s", want, page)
		}
	}
	if strings.Contains(page, "<script>x") {
		t.Error("an answer reached the page unescaped")
	}
	if !strings.Contains(page, "--bad: #b34700") {
		t.Error("the page does not carry the report's stylesheet")
	}
}
