package report

import (
	"encoding/json"
	"io"

	"github.com/rpcbench/rpcbench/summary"
)

// JSON writes s as the indented JSON report.
func JSON(w io.Writer, s *summary.Summary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}
