package cli

import (
	"flag"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/summary"
)

// defineStageRamps defines --stage-ramps on fs, into p.
func defineStageRamps(fs *flag.FlagSet, p *bool) {
	fs.BoolVar(p, "stage-ramps", false, "with --stages, report the ramps (stages whose level moves) among the per-stage figures too; without it only the steps that hold a level")
}

// stagesOfFile collects the per-stage figures of a result file as it is read: the collector is
// made from the plan in the file's header at the first interval. The zero value is ready.
type stagesOfFile struct {
	st   *summary.Stages
	made bool
}

func (s *stagesOfFile) add(f *result.File, iv *result.Interval, ramps bool) {
	if !s.made {
		s.st, s.made = summary.StagesOf(f, ramps), true
	}
	s.st.Add(iv)
}

// Results returns the rows of the stages; nil when the run had none.
func (s *stagesOfFile) Results() []summary.Stage { return s.st.Results() }
