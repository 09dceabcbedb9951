package bench

import (
	"fmt"
	"slices"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// wholeRunTitle heads the table of a scenario's resources over all its steps.
const wholeRunTitle = "Resources over the whole scenario (avg / peak over the measured parts of all its steps; CPU in % of one core; ratios of the averages)"

// WholeRun is what was watched of one target over every step of a scenario: each watched thing's
// samples of all the steps taken together (mergeResources).
type WholeRun struct {
	Target string `json:"target"`
	// Steps counts the steps whose run against the target ran.
	Steps     int                `json:"steps"`
	Resources []result.Resources `json:"resources"`
	// Vs is the first watched thing against the first target's, in words ("20× less CPU").
	Vs string `json:"vs_first,omitempty"`
}

// wholeRun merges, per target, what was watched of it in each step of scenario name (a step per
// group); nil unless the scenario ran in more than one step and something of a target was watched.
// The generator's own figures are left out.
func wholeRun(name string, groups []Group) []WholeRun {
	var out []WholeRun
	steps := 0
	index := map[string]int{}
	parts := map[string][][]result.Resources{} // per target, each step's resources
	for _, g := range groups {
		if g.Scenario != name {
			continue
		}
		steps++
		sums, labels := g.Summaries()
		for i, s := range sums {
			if _, ok := index[labels[i]]; !ok {
				index[labels[i]] = len(out)
				out = append(out, WholeRun{Target: labels[i]})
			}
			out[index[labels[i]]].Steps++
			parts[labels[i]] = append(parts[labels[i]], s.Resources)
		}
	}
	if steps < 2 {
		return nil
	}
	watched := false
	for i := range out {
		var order []string
		byName := map[string][]result.Resources{}
		for _, rs := range parts[out[i].Target] {
			for _, r := range rs {
				if r.Self {
					continue
				}
				if _, ok := byName[r.Target]; !ok {
					order = append(order, r.Target)
				}
				byName[r.Target] = append(byName[r.Target], r)
			}
		}
		for _, n := range order {
			out[i].Resources = append(out[i].Resources, mergeResources(byName[n]))
			watched = true
		}
	}
	if !watched {
		return nil
	}
	if len(out) > 1 {
		if base, ok := primary(out[0].Resources); ok {
			for i := 1; i < len(out); i++ {
				if p, ok := primary(out[i].Resources); ok {
					out[i].Vs = resourceWords(p.Summary, base.Summary)
				}
			}
		}
	}
	return out
}

// wholeRunTable is the table of wholeRun: per target, its resources over the whole scenario,
// against the first target's in words; nil when wholeRun is.
func wholeRunTable(name string, groups []Group) *table {
	wr := wholeRun(name, groups)
	if wr == nil {
		return nil
	}
	labels := make([]string, len(wr))
	res := make([][]result.Resources, len(wr))
	most := 0
	for _, w := range wr {
		most = max(most, w.Steps)
	}
	for i, w := range wr {
		labels[i], res[i] = w.Target, w.Resources
		if w.Steps < most {
			labels[i] += fmt.Sprintf(" (%d of %d steps)", w.Steps, most)
		}
	}
	return resourcesCompared(wholeRunTitle, labels, res, wholeProcessesText)
}

// wholeProcessesText is the processes cell of a merged record: the fewest–most processes any
// sample counted, the PIDs the steps began with, and how often the set changed within the steps.
func wholeProcessesText(r result.Resources) string {
	changes := r.PIDChangesTotal
	r.PIDChangesTotal = 0
	s := summary.ProcessesText(r)
	if changes > 0 {
		s += fmt.Sprintf(", changed %d× within the steps", changes)
	}
	return s
}

// mergeResources takes the records of one watched thing in several runs (a scenario's steps) as
// one: rates (CPU, disk and network per second) average over the runs' measured time, levels (RSS,
// threads, open files) over their samples, as a single run's samples would; peaks are the highest;
// totals, samples and durations add up. PIDs are those the runs began with, ascending; the
// record's samples and PID changes are not kept (each run's are on its own timeline).
func mergeResources(rs []result.Resources) result.Resources {
	out := result.Resources{Target: rs[0].Target}
	m := &out.Summary
	type part struct {
		st result.ResourceStat
		w  float64
	}
	merge := func(ps []part) result.ResourceStat {
		var st result.ResourceStat
		var sum, w float64
		for _, p := range ps {
			if p.st.Samples == 0 {
				continue
			}
			if st.Samples == 0 || p.st.Peak > st.Peak {
				st.Peak = p.st.Peak
			}
			st.Samples += p.st.Samples
			sum += p.st.Avg * p.w
			w += p.w
		}
		if w > 0 {
			st.Avg = sum / w
		}
		return st
	}
	stat := func(f func(*result.ResourceSummary) result.ResourceStat, rate bool) result.ResourceStat {
		var ps []part
		for i := range rs {
			st := f(&rs[i].Summary)
			w := float64(st.Samples)
			if rate {
				w = rs[i].Summary.Duration.Seconds()
			}
			ps = append(ps, part{st, w})
		}
		return merge(ps)
	}
	for i, r := range rs {
		s := r.Summary
		m.Samples += s.Samples
		m.Duration += s.Duration
		m.DiskReadTotal += s.DiskReadTotal
		m.DiskWriteTotal += s.DiskWriteTotal
		m.NetRxTotal += s.NetRxTotal
		m.NetTxTotal += s.NetTxTotal
		if s.ProcsMax > 0 {
			if m.ProcsMax == 0 {
				m.ProcsMin = s.ProcsMin
			}
			m.ProcsMin, m.ProcsMax = min(m.ProcsMin, s.ProcsMin), max(m.ProcsMax, s.ProcsMax)
		}
		if i == 0 || m.NetScope == "" {
			m.NetScope = s.NetScope
		}
		for _, p := range r.PIDs {
			if !slices.Contains(out.PIDs, p) {
				out.PIDs = append(out.PIDs, p)
			}
		}
		out.PIDChangesTotal += r.PIDChangesTotal
		if r.Error != "" && out.Error == "" {
			out.Error = r.Error
		}
	}
	slices.Sort(out.PIDs)
	m.CPUPercent = stat(func(s *result.ResourceSummary) result.ResourceStat { return s.CPUPercent }, true)
	m.DiskRead = stat(func(s *result.ResourceSummary) result.ResourceStat { return s.DiskRead }, true)
	m.DiskWrite = stat(func(s *result.ResourceSummary) result.ResourceStat { return s.DiskWrite }, true)
	m.NetRx = stat(func(s *result.ResourceSummary) result.ResourceStat { return s.NetRx }, true)
	m.NetTx = stat(func(s *result.ResourceSummary) result.ResourceStat { return s.NetTx }, true)
	m.RSS = stat(func(s *result.ResourceSummary) result.ResourceStat { return s.RSS }, false)
	m.Threads = stat(func(s *result.ResourceSummary) result.ResourceStat { return s.Threads }, false)
	m.FDs = stat(func(s *result.ResourceSummary) result.ResourceStat { return s.FDs }, false)
	out.Samples = []result.ResourceSample{}
	return out
}
