package planfile

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/plan"
)

// TestReadReplay reads a replay scenario's every key, with the keys of how its requests travel.
func TestReadReplay(t *testing.T) {
	t.Parallel()
	b, err := ReadFile("dir/p.yaml", strings.NewReader(`targets:
  a: {url: http://127.0.0.1:1/}
scenarios:
  recorded:
    replay:
      files: [access.log.1, /var/log/access.log]
      log_format: '$remote_addr [$time_local] "$request" $status'
      rate: 300/m
      loop: 2
      every: 3
      sample: 0.5
      include: ^/api/
      exclude: /health
      drop_header: [Cookie]
      expect_recorded_status: true
    header: "Authorization: Bearer t"
    connections: 8
    timeout: 2s
    slo: p99<50ms
`))
	if err != nil {
		t.Fatal(err)
	}
	s := b.Scenarios[0]
	want := &plan.ScenarioReplay{Files: []string{"access.log.1", "/var/log/access.log"},
		Format: `log_format:$remote_addr [$time_local] "$request" $status`, Rate: 5, Loop: 2, Every: 3, Sample: 0.5, Seed: 1,
		Include: "^/api/", Exclude: "/health", DropHeaders: []string{"Cookie"}, RecordedStatus: true}
	if !reflect.DeepEqual(s.Replay, want) {
		t.Errorf("replay: got %+v; want %+v", s.Replay, want)
	}
	if got := s.Replay.FilesIn(b.Dir); !reflect.DeepEqual(got, []string{"dir/access.log.1", "/var/log/access.log"}) {
		t.Errorf("files: got %v; want the relative one in the plan file's dir", got)
	}
	if l := s.Plan.Load; l.Connections != 8 || s.Plan.HTTP.Timeout.String() != "2s" || s.Plan.SLO.String() != "p99<50ms" || len(s.Plan.Traffic.Header) != 1 {
		t.Errorf("plan: got %+v; want the scenario's connections, timeout, SLO and header", s.Plan)
	}
	if s.Runs() != 1 {
		t.Errorf("runs: got %d; want one per target", s.Runs())
	}
	const line = `replay of access.log.1, /var/log/access.log in recorded order at 5/s, 2 passes, one record in 3, a 0.5 sample (seed 1), paths matching "^/api/", paths not matching "/health", each answer judged by its recorded status`
	if got := s.Describe(0, false); got != line {
		t.Errorf("describe: got\n%s\nwant\n%s", got, line)
	}
}
