package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// grpcStatuses reports whether the statuses are gRPC's, which a Summary names ("OK", "NotFound")
// where HTTP's are numbers.
func grpcStatuses(status map[string]uint64) bool {
	for c := range status {
		if _, err := strconv.Atoi(c); err != nil {
			return true
		}
	}
	return false
}

// statusOrder returns the status codes in the order a report lists them: HTTP's by number; gRPC's
// OK first, then the most frequent first.
func statusOrder(status map[string]uint64) []string {
	codes := make([]string, 0, len(status))
	for c := range status {
		codes = append(codes, c)
	}
	if !grpcStatuses(status) {
		sort.Strings(codes)
		return codes
	}
	sort.Slice(codes, func(i, j int) bool {
		a, b := codes[i], codes[j]
		if (a == "OK") != (b == "OK") {
			return a == "OK"
		}
		if status[a] != status[b] {
			return status[a] > status[b]
		}
		return a < b
	})
	return codes
}

// grpcByMethod writes the status codes of each method of a gRPC run with several: a line per
// method, "rpz.ItemService/GetItem  OK 120, NotFound 80".
func grpcByMethod(b *strings.Builder, s *summary.Summary) {
	if s.Config.Protocol != result.GRPC || !grpcStatuses(s.Status) {
		return
	}
	b.WriteString("\ngRPC status codes by method\n")
	width := 0
	for _, e := range s.Endpoints {
		width = max(width, len(e.Name))
	}
	for _, e := range s.Endpoints {
		var parts []string
		for _, c := range statusOrder(e.Status) {
			parts = append(parts, fmt.Sprintf("%s %d", c, e.Status[c]))
		}
		if len(parts) == 0 {
			parts = append(parts, "no answer")
		}
		fmt.Fprintf(b, "  %-*s  %s\n", width, e.Name, strings.Join(parts, ", "))
	}
}

// mdGRPCByMethod is grpcByMethod in Markdown: a table of methods by status code.
func mdGRPCByMethod(b *strings.Builder, s *summary.Summary) {
	if len(s.Endpoints) < 2 || s.Config.Protocol != result.GRPC || !grpcStatuses(s.Status) {
		return
	}
	codes := statusOrder(s.Status)
	b.WriteString("\ngRPC status codes by method:\n\n")
	mdHeader(b, append([]string{"method"}, codes...)...)
	for _, e := range s.Endpoints {
		row := []string{mdCell(e.Name)}
		for _, c := range codes {
			row = append(row, fmt.Sprint(e.Status[c]))
		}
		mdRow(b, row...)
	}
}
