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
		v := viewJump(j)
		fmt.Fprintf(b, "  %s  %s\n", v.Span, v.What)
		pad := strings.Repeat(" ", len([]rune(v.Span))+2)
		for _, c := range v.Coincided {
			fmt.Fprintf(b, "  %scoincided: %s\n", pad, c)
		}
	}
}

// jumpView is a jump as the reports say it: its span ("2s–3s"), what jumped, and what coincided —
// "none of the watched signals moved" when nothing did.
type jumpView struct {
	Span, What string
	Coincided  []string
}

func viewJump(j summary.Jump) jumpView {
	v := jumpView{Span: fmt.Sprintf("%gs–%gs", tenth(j.StartS), tenth(j.EndS)), What: j.What, Coincided: j.Coincided}
	if len(v.Coincided) == 0 {
		v.Coincided = []string{"none of the watched signals moved"}
	}
	return v
}

// tenth rounds seconds to the tenth.
func tenth(v float64) float64 { return math.Round(v*10) / 10 }

// viewJumps are the jumps of s as the HTML page lists them; nil when none.
func viewJumps(s *summary.Summary) []jumpView {
	var out []jumpView
	for _, j := range summary.Jumps(s) {
		out = append(out, viewJump(j))
	}
	return out
}
