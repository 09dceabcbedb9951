package report

import (
	"fmt"
	"strings"

	"github.com/rpcbench/rpcbench/summary"
)

// generatorLines says, one line each, what every generator of a merged run sent.
func generatorLines(s *summary.Summary) []string {
	var out []string
	for _, g := range s.Generators {
		line := fmt.Sprintf("%s: intended %d (%s/s), sent %d (%s/s), send lag p99 %s, max %s",
			g.Name(), g.Intended, fmt1(g.IntendedRate), g.Sent, fmt1(g.SendRate), fmtMs(g.SendLagP99), fmtMs(g.SendLagMax))
		if g.StartLate > 0 {
			line += ", started " + fmtMs(g.StartLate) + " late"
		}
		if g.FellBehind {
			line += " — FELL BEHIND: " + g.Why
		}
		out = append(out, line)
	}
	return out
}

// generatorsText writes the generators of a merged run.
func generatorsText(b *strings.Builder, s *summary.Summary) {
	if len(s.Generators) == 0 {
		return
	}
	fmt.Fprintf(b, "\nGenerators: %d merged\n", len(s.Generators))
	for _, l := range generatorLines(s) {
		fmt.Fprintf(b, "  %s\n", l)
	}
}
