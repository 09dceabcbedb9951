package bench

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/replay"
	"github.com/rpcbench/rpcbench/runner"
)

// PrepareReplay prepares replay scenario s against target t: its timeline, the recording read
// once through fsys as the replay will read it (records sent to t's URL), and the plan it runs —
// the recording's endpoints, count and mean rate with the scenario's connections, timeouts, TLS,
// checks and SLO. Start the timeline before the run and close it after (see Timeline.Engine).
func PrepareReplay(s plan.Scenario, t plan.BenchTarget, dir string, fsys fs.FS) (*plan.Prepared, *replay.Timeline, error) {
	p := s.PlanFor(t, 0, dir)
	ro, err := replay.OptionsOf(s.Replay, t.URL, dir, p.Traffic.Header)
	if err != nil {
		return nil, nil, err
	}
	ro.Open = func(name string) (io.ReadCloser, error) { return fsys.Open(name) }
	tl, err := replay.Scan(ro)
	if err != nil {
		return nil, nil, err
	}
	rp := tl.Plan(t.URL)
	p.Endpoints, p.Traffic = rp.Endpoints, plan.Traffic{} // the headers go with each record (replay.Options.SetHeaders)
	p.Load.Model, p.Load.Rate, p.Load.Requests = rp.Load.Model, rp.Load.Rate, rp.Load.Requests
	prep, err := plan.Prepare(p, fsys)
	if err != nil {
		return nil, nil, err
	}
	tl.Judge(prep)
	return prep, tl, nil
}

// DescribeReplay says in a line what a prepared timeline sends: its records and when the last goes.
func DescribeReplay(tl *replay.Timeline) string {
	return fmt.Sprintf("%d recorded requests, the last %v after the first", tl.Records(), tl.Last().Round(time.Millisecond))
}

// runReplay runs replay scenario s's prepared run id, paced by its timeline, through runLoad.
func (o *Options) runReplay(ctx context.Context, id RunID, s plan.Scenario, prep *plan.Prepared, tl *replay.Timeline, ro runner.Options) Measured {
	tl.Start()
	defer tl.Close()
	ro.Engine = append(ro.Engine, tl.Engine(prep, s.Replay.RecordedStatus)...)
	return o.runLoad(ctx, id, prep, ro, DescribeReplay(tl))
}
