package summary

import (
	"strconv"

	"github.com/rpcbench/rpcbench/check"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
)

// nameStatuses names the status codes of s as its plan's protocol names them (transport's
// Protocol.StatusName): gRPC's codes by name, "OK" included. A gRPC answer of status OK is recorded
// with no status code (0 means no status there), so OK counts the answers no other code counts.
func nameStatuses(s *Summary, p plan.Plan) {
	proto := p.ProtocolOf()
	if proto != result.GRPC {
		return
	}
	name := func(st *Stats) {
		named := make(map[string]uint64, len(st.Status)+1)
		var coded uint64
		for code, n := range st.Status {
			if c, err := strconv.Atoi(code); err == nil { // written by stats: always a number
				code = proto.StatusName(c)
			}
			named[code] += n
			coded += n
		}
		if ok := st.Requests.Completed - min(coded, st.Requests.Completed); ok > 0 {
			named[proto.StatusName(0)] += ok
		}
		st.Status = named
	}
	name(&s.Stats)
	for i := range s.Endpoints {
		name(&s.Endpoints[i].Stats)
	}
}

// countMisses sets the Misses of s and of each endpoint: the answers whose status is one of the
// plan's miss statuses (plan.Checks.Miss), which the plan's verifier counts as successes and judges
// no further, so that each is one of OK. Nothing for a plan without them, or a protocol whose
// answers carry no HTTP status.
func countMisses(s *Summary, p plan.Plan) {
	if p.Checks.Miss == "" || !p.ProtocolOf().HTTPStatus() {
		return
	}
	miss, err := check.ParseStatuses(p.Checks.Miss)
	if err != nil {
		return // the plan did not run with it: Prepare refuses it
	}
	count := func(st *Stats) {
		for code, n := range st.Status {
			if c, err := strconv.Atoi(code); err == nil && miss.Has(c) {
				st.Requests.Misses += n
			}
		}
	}
	count(&s.Stats)
	for i := range s.Endpoints {
		count(&s.Endpoints[i].Stats)
	}
}
