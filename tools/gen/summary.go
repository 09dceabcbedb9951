package gen

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteText writes what the crawl recorded in st wrote to dir: the blocks, the requests per
// method (and how many of them the node answered with an error), and the methods skipped.
func WriteText(w io.Writer, dir string, st *State) error {
	written := 0
	for _, n := range st.Requests {
		written += n
	}
	done := st.Next - st.From
	unit, order := "blocks", Methods
	if st.Kind == "jsonrpc" {
		unit, order = "steps", st.Methods
	}
	fmt.Fprintf(w, "%s: %s %d to %d, %d of %d written; %d requests sent, %d written\n",
		dir, unit, st.From, st.To, done, st.To+1-st.From, st.Sent, written)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "method\trequests\terror answers")
	for _, m := range order {
		n, ok := st.Requests[m]
		if !ok {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\n", m, n, st.Errors[m])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(st.Skipped) > 0 {
		fmt.Fprintln(w, "skipped, the node does not have them:")
		for _, m := range order {
			if note, ok := st.Skipped[m]; ok {
				fmt.Fprintf(w, "  %s (%s)\n", m, note)
			}
		}
	}
	for _, m := range order {
		if n := st.Unfilled[m]; n > 0 {
			fmt.Fprintf(w, "%s: %d calls not made, a template's reference selected nothing\n", m, n)
		}
	}
	var none []string
	for _, m := range st.Methods {
		if _, ok := st.Requests[m]; !ok {
			if _, ok := st.Skipped[m]; !ok {
				none = append(none, m)
			}
		}
	}
	if len(none) > 0 {
		fmt.Fprintf(w, "nothing to write for %v in these %s\n", none, unit)
	}
	_, err := fmt.Fprintln(w, "files: METHOD.jsonl (for run --targets, diff --targets) and METHOD.calls.jsonl (run --calls, diff --calls)")
	return err
}
