package summary

import (
	"encoding/json"
	"fmt"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/result"
)

// OfFile folds a result file (read with result.ReadFile or ReadMerged) into the Summary its run
// printed at the end, with timeline as its Timeline and the resources the monitor saw. Its plan
// is shown as plan.Plan.Shown(showSecrets) shows it: a file written with --show-secrets holds them.
func OfFile(f *result.File, timeline []Point, showSecrets bool) (*Summary, error) {
	var p plan.Plan
	if len(f.Header.Config) > 0 {
		if err := json.Unmarshal(f.Header.Config, &p); err != nil {
			return nil, fmt.Errorf("%s: the header's config is not a plan: %v", f.Path, err)
		}
	}
	s := New(Run{Plan: p.Shown(showSecrets), Version: f.Header.ToolVersion, Trailer: f.Run(), CutShort: f.CutShort(), Parts: f.Parts}, f.Total)
	s.SetTimeline(timeline)
	if len(f.Resources) > 0 || f.Metrics != nil {
		s.SetResources(f.Resources, f.Metrics)
	}
	if f.Subscriptions != nil {
		if err := json.Unmarshal(f.Subscriptions, &s.Subscriptions); err != nil {
			return nil, fmt.Errorf("%s: the subscriptions record is not the figures of subscriptions: %v", f.Path, err)
		}
	}
	return s, nil
}
