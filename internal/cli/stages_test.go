package cli

import (
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/serve/lab"
	"github.com/rpcbench/rpcbench/summary"
)

// A run with --stages reports a row per stage and endpoint; ramps only with --stage-ramps. The rows
// come out the same from the run and from its result file, and agree with the timeline: a stage's
// requests are those of the intervals StageOf assigns to it, and with the ramps every interval is
// in one stage.
func TestRunStages(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{Latency: 2 * time.Millisecond})
	rb := filepath.Join(t.TempDir(), "run.rb")
	// closed model: a step to 1 connection held 1 s, a ramp to 2 over 1 s, 2 held 1 s
	code, stdout, stderr := mainOut("run", "--quiet", "--model", "closed", "--stages", "0s:1,1s:1,1s:2,1s:2", "--interval", "250ms",
		"--endpoint", "a=GET "+srv.URL()+"/a", "--endpoint", "b=GET "+srv.URL()+"/b", "--format", "json", "--stage-ramps", "--out", rb)
	if code != ExitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	var s summary.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	var idx []int
	var requests uint64
	for _, st := range s.Stages {
		idx = append(idx, st.Index)
		requests += st.Requests
		if len(st.Endpoints) != 2 || st.Endpoints[0].Endpoint != "a" || st.Endpoints[0].Requests+st.Endpoints[1].Requests != st.Requests {
			t.Errorf("stage %d: endpoints %+v; want a and b adding up to %d requests", st.Index, st.Endpoints, st.Requests)
		}
		var fromTimeline uint64
		for _, p := range s.Timeline {
			if i, _ := summary.StageOf(s.Config.Load, seconds(p.Start), seconds(p.End)); p.Endpoint == "" && i == st.Index {
				fromTimeline += p.OK + p.Errors
			}
		}
		if fromTimeline != st.Requests || st.Requests == 0 {
			t.Errorf("stage %d: %d requests; its intervals in the timeline hold %d", st.Index, st.Requests, fromTimeline)
		}
	}
	if !reflect.DeepEqual(idx, []int{2, 3, 4}) || !s.Stages[1].Ramp || s.Stages[0].Ramp || s.Stages[2].Ramp {
		t.Fatalf("stages %v (%+v); want 2 (a hold), 3 (the ramp), 4 (a hold)", idx, s.Stages)
	}
	if requests != s.Requests.Attempted() {
		t.Errorf("the stages hold %d requests; the run made %d", requests, s.Requests.Attempted())
	}

	// from the result file: the same rows; without --stage-ramps, the ramp left out
	code, out, stderr := mainOut("report", "--format", "json", "--stage-ramps", rb)
	var again summary.Summary
	if code != ExitOK || json.Unmarshal([]byte(out), &again) != nil {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	if !reflect.DeepEqual(again.Stages, s.Stages) {
		t.Errorf("report of the file: stages\n%+v\nwant those of the run\n%+v", again.Stages, s.Stages)
	}
	code, out, _ = mainOut("report", rb)
	if code != ExitOK || !strings.Contains(out, "ramps left out unless --stage-ramps") || strings.Contains(out, "1→2 connections") ||
		!strings.Contains(out, "  2      1 connection ") || !strings.Contains(out, "  4      2 connections") {
		t.Errorf("text report without ramps: exit %d\n%s", code, out)
	}
}

// seconds converts the seconds of a timeline point back to a Duration.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }
