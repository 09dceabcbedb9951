package summary

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/rpcbench/rpcbench/monitor"
	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
)

// MarkListeners records, on each resource of rs that watched processes by PID or by name (trs
// being what the watch saw of them, in the same order), which processes of this machine listen on
// the port of each of p's endpoint URLs, and whether each is one of them: one the samples counted,
// or now below a watched PID. An endpoint that does not answer, that is not on this machine or
// whose holders the system does not tell (not Linux) adds nothing.
func MarkListeners(ctx context.Context, rs []result.Resources, trs []monitor.WatchResult, p plan.Plan) {
	if !slices.ContainsFunc(trs, func(tr monitor.WatchResult) bool {
		return tr.Target.Kind == monitor.KindPIDs || tr.Target.Kind == monitor.KindName
	}) {
		return // nothing watched that could hold the port
	}
	type port struct {
		addr *net.TCPAddr
		l    monitor.Listening
	}
	var ports []port
	seen := map[string]bool{}
	for _, e := range p.Endpoints {
		addr := monitor.AnswerAt(ctx, e.URL)
		if addr == nil || !monitor.Local(addr.IP) || seen[addr.String()] {
			continue
		}
		seen[addr.String()] = true
		if l, err := monitor.Listeners(addr.IP, addr.Port); err == nil {
			ports = append(ports, port{addr, l})
		}
	}
	if len(ports) == 0 {
		return
	}
	for i, tr := range trs {
		if i >= len(rs) || (tr.Target.Kind != monitor.KindPIDs && tr.Target.Kind != monitor.KindName) {
			continue
		}
		watched := watchedPIDs(tr)
		for _, pt := range ports {
			for _, lp := range pt.l.Procs {
				rs[i].Listeners = append(rs[i].Listeners, result.Listener{Addr: pt.addr.String(), PID: lp.PID, Comm: lp.Comm, Watched: watched[lp.PID]})
			}
			rs[i].ListenersHidden += pt.l.Hidden
		}
	}
}

// watchedPIDs are the processes a watch counted of a target, in any kept sample, and those below
// its PIDs now.
func watchedPIDs(tr monitor.WatchResult) map[int]bool {
	out := map[int]bool{}
	for _, p := range tr.Summary.PIDs {
		out[p] = true
	}
	for _, x := range tr.Samples {
		for _, p := range x.PIDs {
			out[p] = true
		}
	}
	if tr.Target.Kind == monitor.KindPIDs {
		for _, p := range tr.Target.PIDs {
			out[p] = true
		}
		if tree, err := monitor.Descendants(tr.Target.PIDs...); err == nil {
			for _, p := range tree {
				out[p] = true
			}
		}
	}
	return out
}

// answeredElsewhere says, as a reason of the verdict, which processes listened on the target's
// port without being any monitored target's, so that the monitor's figures are not those of what
// answered; as a caveat, that a process this user may not see listened there and none of the
// monitored ones did.
func answeredElsewhere(rs []result.Resources) (reason, caveat string) {
	for _, r := range rs {
		if !r.Self && strings.HasPrefix(r.Target, "cgroup ") {
			// a cgroup (a container's) is watched whole, its PIDs not kept: a listener may be in
			// it, so who answered cannot be told
			return "", ""
		}
	}
	var monitored []string
	var looked bool
	hidden := 0
	watched := map[int]bool{}
	var listeners []result.Listener
	for _, r := range rs {
		if len(r.Listeners) == 0 && r.ListenersHidden == 0 {
			continue
		}
		looked = true
		hidden = max(hidden, r.ListenersHidden)
		name := r.Target
		if len(r.PIDs) > 0 && !strings.HasSuffix(name, "pid "+joinInts(r.PIDs, ", ")) {
			name += " (pids " + joinInts(r.PIDs, ", ") + ")"
		}
		monitored = append(monitored, name)
		for _, l := range r.Listeners {
			watched[l.PID] = watched[l.PID] || l.Watched
			if !slices.ContainsFunc(listeners, func(x result.Listener) bool { return x.PID == l.PID && x.Addr == l.Addr }) {
				listeners = append(listeners, l)
			}
		}
	}
	if !looked {
		return "", ""
	}
	var foreign, own []string
	for _, l := range listeners {
		who := fmt.Sprintf("pid %d (%s) on %s", l.PID, l.Comm, l.Addr)
		if watched[l.PID] {
			own = append(own, who)
		} else {
			foreign = append(foreign, who)
		}
	}
	switch {
	case len(foreign) > 0:
		reason = fmt.Sprintf("the target answered from %s, not from the monitored process(es): %s", strings.Join(foreign, ", "), strings.Join(monitored, ", "))
		if len(own) > 0 {
			reason += fmt.Sprintf("; %s listened there too, so only some of the answers came from what was monitored", strings.Join(own, ", "))
		}
	case len(own) == 0 && hidden > 0:
		caveat = fmt.Sprintf("%d socket(s) listening on the target's port belong to processes this user may not see, and none of the monitored process(es) (%s) listened there: whether they answered cannot be told", hidden, strings.Join(monitored, ", "))
	}
	return reason, caveat
}
