package result

import (
	"strings"
	"testing"
)

// A failing value is shown on one line, cut on a character, saying how long it was.
func TestSample(t *testing.T) {
	t.Parallel()
	a79 := strings.Repeat("a", 79)
	for _, tc := range []struct{ got, want string }{
		{"", "(empty)"},
		{`{"n":11}`, `{"n":11}`},
		{"a\nb\x00c\td", `a\nb\x00c\td`},
		{"ok\xffok", `ok\xffok`},
		{strings.Repeat("b", 80), strings.Repeat("b", 80)},
		{strings.Repeat("b", 81), strings.Repeat("b", 80) + "… (81 bytes)"},
		{strings.Repeat("a", 78) + "é", strings.Repeat("a", 78) + "é"}, // 80 bytes: whole
		{a79 + "é", a79 + "… (81 bytes)"},                              // é would be split at byte 80
		{strings.Repeat("é", 50), strings.Repeat("é", 40) + "… (100 bytes)"},
	} {
		if got := Sample([]byte(tc.got)); got != tc.want {
			t.Errorf("Sample(%q) = %q; want %q", tc.got, got, tc.want)
		}
	}
}
