package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/rpcbench/rpcbench/summary"
)

// jumpsText lists the stretches of the timeline where latency or errors jumped, and what
// coincided among the watched signals (summary.Jumps); nothing when none jumped.
func jumpsText(b *strings.Builder, s *summary.Summary) {
	jumps := summary.Jumps(s)
	if len(jumps) == 0 {
		return
	}
	b.WriteString("\nJumps on the timeline (what coincided among the watched signals: a coincidence, not a cause)\n")
	for _, j := range jumps {
		span := fmt.Sprintf("%gs–%gs", tenth(j.StartS), tenth(j.EndS))
		fmt.Fprintf(b, "  %s  %s\n", span, j.What)
		pad := strings.Repeat(" ", len([]rune(span))+2)
		if len(j.Coincided) == 0 {
			fmt.Fprintf(b, "  %scoincided: none of the watched signals moved\n", pad)
		}
		for _, c := range j.Coincided {
			fmt.Fprintf(b, "  %scoincided: %s\n", pad, c)
		}
	}
}

// tenth rounds seconds to the tenth.
func tenth(v float64) float64 { return math.Round(v*10) / 10 }
