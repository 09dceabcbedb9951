package report

import (
	"fmt"
	"strings"

	"github.com/rpcbench/rpcbench/summary"
)

// judged reports whether v is a verdict (summary.Judge) rather than the zero value of a Summary
// built by hand.
func judged(v summary.Validity) bool { return v.Valid || v.Reasons != nil }

// validityLine is the verdict in one line: "valid run" or "INVALID run: reason; reason".
func validityLine(v summary.Validity) string {
	if v.Valid {
		return "valid run"
	}
	return "INVALID run: " + strings.Join(v.Reasons, "; ")
}

// validityText writes the verdict as the text report's first line, and each caveat below it.
func validityText(b *strings.Builder, s *summary.Summary) {
	if !judged(s.Validity) {
		return
	}
	b.WriteString(validityLine(s.Validity) + "\n")
	for _, c := range s.Validity.Caveats {
		fmt.Fprintf(b, "  caveat: %s\n", c)
	}
}

// validityMarkdown writes the verdict of one run as a paragraph, its caveats as quotes.
func validityMarkdown(b *strings.Builder, s *summary.Summary, label string) {
	v := s.Validity
	if !judged(v) {
		return
	}
	if label != "" {
		label += ": "
	}
	if v.Valid {
		fmt.Fprintf(b, "%s**valid run**\n", mdCell(label))
	} else {
		fmt.Fprintf(b, "%s**INVALID run**: %s\n", mdCell(label), mdCell(strings.Join(v.Reasons, "; ")))
	}
	for _, c := range v.Caveats {
		fmt.Fprintf(b, "\n> caveat: %s\n", mdCell(c))
	}
	b.WriteString("\n")
}
