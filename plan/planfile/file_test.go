package planfile

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rpcbench/rpcbench/plan"

	"github.com/rpcbench/rpcbench/schedule"
	"github.com/rpcbench/rpcbench/transport"
)

const benchYAML = `# two JSON-RPC nodes compared
targets:
  go:
    url: http://127.0.0.1:18545/
    command: ./node --port 18545
    ready: http://127.0.0.1:18545/health
    ready_timeout: 10s
    env: {GOGC: 200}
  rust:
    url: http://127.0.0.1:18546
    command: [./node-rs, --port, "18546"]
slo: p99<50ms
scenarios:
  methods:
    jsonrpc:
      calls:
        - method: eth_blockNumber
        - {method: eth_getBalance, params: ["{{randAddress}}", latest], name: balance, weight: 2}
    steps: [50, 100]
    step: 5m
    ramp: 1m
  read:
    endpoints:
      - {name: get, path: "/v0/entity?id={{randInt 1 9}}", weight: 8}
      - {name: put, method: PUT, path: "/v0/entity?id=1", body: "{}", weight: 2, header: {X-A: b}}
    rate: 300/m
    duration: 30s
    send_slack: 500us
    checks: {status: 2xx, body: ["json result exists"]}
    slo: errors<1%
  e2e:
    command: go test -json ./e2e
    timeout: 10m
    env: {E2E: "1"}
    junit: reports/TEST-*.xml
    build: [go, test, -c, -o, /dev/null, ./e2e]
    repeat: 2
  pytest:
    command: pytest --junitxml="$RPCBENCH_JUNIT"
    junit: true
`

func TestReadFile(t *testing.T) {
	t.Parallel()
	b, err := ReadFile("plans/bench.yaml", strings.NewReader(benchYAML))
	if err != nil {
		t.Fatal(err)
	}
	if b.Dir != "plans" {
		t.Errorf("dir: got %q; want plans", b.Dir)
	}
	wantTargets := []plan.BenchTarget{
		{Name: "go", URL: "http://127.0.0.1:18545/", Command: []string{"./node --port 18545"}, Shell: true, Env: []string{"GOGC=200"}, Ready: "http://127.0.0.1:18545/health", ReadyTimeout: 10 * time.Second},
		{Name: "rust", URL: "http://127.0.0.1:18546", Command: []string{"./node-rs", "--port", "18546"}},
	}
	if !reflect.DeepEqual(b.Targets, wantTargets) {
		t.Errorf("targets:\ngot  %+v\nwant %+v", b.Targets, wantTargets)
	}
	if len(b.Scenarios) != 4 {
		t.Fatalf("scenarios: got %d; want 4", len(b.Scenarios))
	}
	m, r, e := b.Scenarios[0], b.Scenarios[1], b.Scenarios[2]
	if m.Name != "methods" || !reflect.DeepEqual(m.Steps, []float64{50, 100}) || m.Step != 5*time.Minute || m.Ramp != time.Minute {
		t.Errorf("methods: got %+v", m)
	}
	wantCalls := []plan.Call{{Method: "eth_blockNumber"}, {Method: "eth_getBalance", Params: []byte(`["{{randAddress}}","latest"]`), Name: "balance", Weight: 2}}
	if !reflect.DeepEqual(m.Plan.JSONRPC.Calls, wantCalls) {
		t.Errorf("calls: got %+v; want %+v", m.Plan.JSONRPC.Calls, wantCalls)
	}
	if got := m.Plan.SLO.String(); got != "p99<50ms" {
		t.Errorf("methods slo: got %q; want the file's p99<50ms", got)
	}
	// step 2 against rust: 100 connections, 5m measured after a 1m warm-up, at rust's URL
	p := m.PlanFor(b.Targets[1], 1, b.Dir)
	if p.Load.Model != plan.Closed || p.Load.Connections != 100 || p.Load.Duration != 5*time.Minute || p.Load.Warmup != time.Minute {
		t.Errorf("methods step 2 load: got %+v", p.Load)
	}
	if len(p.Endpoints) != 1 || p.Endpoints[0].URL != "http://127.0.0.1:18546" {
		t.Errorf("methods endpoints: got %+v; want the target's URL", p.Endpoints)
	}
	if got, want := m.StepLabel(1), "100 connections"; got != want {
		t.Errorf("step label: got %q; want %q", got, want)
	}
	if d, ok := m.Length(0); !ok || d != 6*time.Minute {
		t.Errorf("methods length: got %v, %v; want 6m0s", d, ok)
	}

	wantEps := []plan.Endpoint{
		{Name: "get", URL: "/v0/entity?id={{randInt 1 9}}", Weight: 8},
		{Name: "put", Method: "PUT", URL: "/v0/entity?id=1", Body: []byte("{}"), Weight: 2, Header: []transport.Header{{Name: "X-A", Value: "b"}}},
	}
	if !reflect.DeepEqual(r.Plan.Endpoints, wantEps) {
		t.Errorf("read endpoints:\ngot  %+v\nwant %+v", r.Plan.Endpoints, wantEps)
	}
	if r.Plan.Load.Rate != 5 || r.Plan.Load.Duration != 30*time.Second || r.Plan.Load.SendSlack != 500*time.Microsecond {
		t.Errorf("read load: got %+v; want 5/s for 30s with a 500µs send slack", r.Plan.Load)
	}
	if got := r.Plan.SLO.String(); got != "errors<1%" {
		t.Errorf("read slo: got %q; want its own errors<1%%", got)
	}
	if !reflect.DeepEqual(r.Plan.Checks, plan.Checks{Status: "2xx", Body: []string{"json result exists"}}) {
		t.Errorf("read checks: got %+v", r.Plan.Checks)
	}
	rp := r.PlanFor(b.Targets[0], 0, b.Dir)
	if got, want := rp.Endpoints[0].URL, "http://127.0.0.1:18545/v0/entity?id={{randInt 1 9}}"; got != want {
		t.Errorf("read URL on go: got %q; want %q", got, want)
	}
	if !e.IsCommand() || !e.Shell || e.Timeout != 10*time.Minute || !reflect.DeepEqual(e.Env, []string{"E2E=1"}) || e.JUnit != "reports/TEST-*.xml" || e.JUnitRunDir ||
		!reflect.DeepEqual(e.Build, []string{"go", "test", "-c", "-o", "/dev/null", "./e2e"}) || e.BuildShell || e.Repeat != 2 {
		t.Errorf("e2e: got %+v", e)
	}
	if py := b.Scenarios[len(b.Scenarios)-1]; py.Name != "pytest" || py.JUnit != "" || !py.JUnitRunDir {
		t.Errorf("pytest: got %+v; want the JUnit XML in the run directory", py)
	}
}

func TestReadFileStagesAndFiles(t *testing.T) {
	t.Parallel()
	const text = `targets:
  a: {url: "http://127.0.0.1:1/base/"}
scenarios:
  ramp:
    targets_file: t.http
    data: ids.csv
    jsonrpc: {}
    stages: "10s:100,20s:100"
  listed:
    stages: [{duration: 10s, target: 100}, {duration: 0s, target: 200/s}]
`
	b, err := ReadFile("dir/p.yaml", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	p := b.Scenarios[0].PlanFor(b.Targets[0], 0, b.Dir)
	if p.Traffic.Targets != "dir/t.http" || p.Traffic.Data != "dir/ids.csv" || p.Traffic.Base != "http://127.0.0.1:1/base/" || p.JSONRPC.CallsFile != "" {
		t.Errorf("files: got %+v, calls file %q; want them in dir/, based on the target's URL", p.Traffic, p.JSONRPC.CallsFile)
	}
	want := []schedule.Stage{{Duration: 10 * time.Second, Target: 100}, {Duration: 0, Target: 200}}
	if got := b.Scenarios[1].Plan.Load.Stages; !reflect.DeepEqual(got, want) {
		t.Errorf("stages: got %+v; want %+v", got, want)
	}
	if d, ok := b.Scenarios[0].Length(0); !ok || d != 30*time.Second {
		t.Errorf("length: got %v %v; want 30s", d, ok)
	}
}

// TestReadFileErrors checks that each problem is named by file, line, column and key.
func TestReadFileErrors(t *testing.T) {
	t.Parallel()
	head := "targets:\n  a: {url: http://127.0.0.1:1/}\nscenarios:\n"
	tests := []struct {
		name, text string
		want       []string // each a line of the error
	}{
		{"an unknown top-level key", "target:\n  a: {url: http://x/}\n", []string{
			`p.yaml:1:1: target: unknown key "target"; want one of: targets, scenarios, slo`}},
		{"an unknown scenario key", head + "  s:\n    rate: 10\n    duraton: 1s\n", []string{
			`p.yaml:6:5: scenarios.s.duraton: unknown key "duraton"; want one of:`}},
		{"an unknown target key", "targets:\n  a:\n    url: http://127.0.0.1:1/\n    cmd: x\nscenarios:\n  s: {rate: 1}\n", []string{
			`p.yaml:4:5: targets.a.cmd: unknown key "cmd"; want one of: url, command, env, ready, ready_timeout`}},
		{"a bad duration", head + "  s:\n    rate: 10\n    duration: 30\n", []string{
			`p.yaml:6:15: scenarios.s.duration: "30" is not a duration: want e.g. 300ms, 30s, 5m or 1h30m`}},
		{"a key of a command scenario in a load scenario's place", head + "  e2e:\n    command: go test\n    rate: 5\n", []string{
			`p.yaml:6:5: scenarios.e2e.rate: unknown key "rate"; want one of: command, env, timeout`}},
		{"repeat 0", head + "  e2e: {command: go test, repeat: 0}\n", []string{
			`p.yaml:4:35: scenarios.e2e.repeat: "0": want a whole number of 1 or more`}},
		{"build in a load scenario", head + "  s: {rate: 5, build: make}\n", []string{
			`p.yaml:4:16: scenarios.s.build: unknown key "build"`}},
		{"junit in a load scenario", head + "  s:\n    rate: 5\n    junit: r.xml\n", []string{
			`p.yaml:6:5: scenarios.s.junit: unknown key "junit"; want one of: endpoints,`}},
		{"an empty junit", head + "  e2e: {command: go test, junit: \"\"}\n", []string{
			`p.yaml:4:34: scenarios.e2e.junit: empty: want the JUnit XML file the command writes (e.g. report.xml, or a glob such as target/surefire-reports/TEST-*.xml), or true for one in the run directory given in $RPCBENCH_JUNIT`}},
		{"a list for junit", head + "  e2e: {command: go test, junit: [a.xml]}\n", []string{
			`p.yaml:4:34: scenarios.e2e.junit: want the JUnit XML file the command writes`}},
		{"a bad junit glob", head + "  e2e: {command: go test, junit: \"r[.xml\"}\n", []string{
			`p.yaml:4:34: scenarios.e2e.junit: "r[.xml": a bad glob: syntax error in pattern`}},
		{"a bad SLO", head + "  s: {rate: 1, slo: p99<fast}\n", []string{
			`p.yaml:4:21: scenarios.s.slo: p99<fast: unit fast`}},
		{"steps without a step length", head + "  s:\n    steps: [1, 2]\n", []string{
			`p.yaml:5:5: scenarios.s: steps without their length`}},
		{"ramp_from of another word", head + "  s:\n    steps: [1, 2]\n    step: 1s\n    ramp: 1s\n    ramp_from: last\n", []string{
			`p.yaml:8:16: scenarios.s.ramp_from: "last": want previous (each step's ramp rises from the level of the step before, as k6's stages do); leave ramp_from out to hold the ramp at the step's level`}},
		{"ramp_from without ramp", head + "  s:\n    steps: [1, 2]\n    step: 1s\n    ramp_from: previous\n", []string{
			`p.yaml:5:5: scenarios.s.ramp_from: a ramp from the step before needs its length: give ramp: (e.g. ramp: 1m)`}},
		{"ramp_from down in the closed model", head + "  s:\n    steps: [2, 1]\n    step: 1s\n    ramp: 1s\n    ramp_from: previous\n", []string{
			`p.yaml:5:5: scenarios.s.steps[1]: 1 connections after 2: with ramp_from: previous the closed model's steps rise`}},
		{"ramp_from without steps", head + "  s: {rate: 1, ramp_from: previous}\n", []string{
			`p.yaml:4:6: scenarios.s: step, ramp and ramp_from are the lengths and ramps of steps: give steps: [50, 100, …] too`}},
		{"a key given twice", head + "  s:\n    rate: 1\n    rate: 2\n", []string{
			`p.yaml:6:5: scenarios.s.rate: given twice`}},
		{"a target without URL, and no scenario", "targets:\n  a:\n    command: x\n", []string{
			`p.yaml:3:5: targets.a: no url`, `p.yaml:1:1: scenarios: no scenario`}},
		{"a name that cannot name a file", "targets:\n  a/b: {url: http://127.0.0.1:1/}\nscenarios:\n  s: {rate: 1}\n", []string{
			`p.yaml:2:3: targets.a/b: name "a/b": want letters`}},
		{"not YAML", "targets: [\n", []string{`p.yaml:1:1: not valid YAML`}},
		{"an endpoint key", head + "  s:\n    endpoints:\n      - {pth: /}\n", []string{
			`p.yaml:6:10: scenarios.s.endpoints[0].pth: unknown key "pth"`}},
		{"a replay key", head + "  s:\n    replay:\n      files: [a.log]\n      sped: 2\n", []string{
			`p.yaml:7:7: scenarios.s.replay.sped: unknown key "sped"; want one of: files, format, log_format, speed, rate,`}},
		{"a load beside a replay", head + "  s:\n    replay: {files: [a.log]}\n    rate: 5\n    path: /x\n", []string{
			`p.yaml:6:5: scenarios.s.rate: a replay sends the recorded requests at their recorded times: drop rate here (with replay: give only header, connections,`,
			`p.yaml:7:5: scenarios.s.path: a replay sends the recorded requests at their recorded times: drop path here`}},
		{"a replay without files", head + "  s:\n    replay: {speed: 2}\n", []string{
			`p.yaml:5:13: scenarios.s.replay: no files: want the recording's files, e.g. files: [access.log]`}},
		{"a replay of stdin", head + "  s:\n    replay: {files: [a.log, \"-\"]}\n", []string{
			`p.yaml:5:21: scenarios.s.replay.files: file 2 is -: standard input cannot be replayed`}},
		{"a replay's bad pattern", head + "  s:\n    replay: {files: [a.log], include: \"(\"}\n", []string{
			`p.yaml:5:39: scenarios.s.replay.include: "(": error parsing regexp: missing closing ): ` + "`(`"}},
		{"a replay's empty log_format", head + "  s:\n    replay: {files: [a.log], log_format: \"\"}\n", []string{
			`p.yaml:5:42: scenarios.s.replay.log_format: empty: want an access log's layout`}},
		{"a replay's speed 0", head + "  s:\n    replay: {files: [a.log], speed: 0}\n", []string{
			`p.yaml:5:37: scenarios.s.replay.speed: want a number above 0`}},
		{"a replay's unknown format", head + "  s:\n    replay: {files: [a.log], format: apache}\n", []string{
			`p.yaml:5:38: scenarios.s.replay.format: "apache": want combined or common or har or jsonrpc or csvlog or vegeta`}},
		{"a replay's speed and rate", head + "  s:\n    replay: {files: [a.log], speed: 2, rate: 10}\n", []string{
			`p.yaml:5:13: scenarios.s.replay: both speed: and rate: give one of them`}},
		{"a replay's recorded statuses and checks.status", head + "  s:\n    replay: {files: [a.log], expect_recorded_status: true}\n    checks: {status: 2xx}\n", []string{
			`p.yaml:6:5: scenarios.s.checks.status: both checks.status and replay.expect_recorded_status: give one of them`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadFile("p.yaml", strings.NewReader(tc.text))
			if err == nil {
				t.Fatalf("got no error; want %q", tc.want)
			}
			var fe *plan.FileError
			if !errors.As(err, &fe) {
				t.Errorf("got %T; want a *FileError", err)
			}
			lines := strings.Split(err.Error(), "\n")
			for _, w := range tc.want {
				found := false
				for _, l := range lines {
					found = found || strings.HasPrefix(l, w)
				}
				if !found {
					t.Errorf("got:\n%v\nwant a line starting %q", err, w)
				}
			}
		})
	}
}

// FuzzReadFile checks that no plan file makes ReadFile panic, and that what it accepts has a
// target and a scenario.
func FuzzReadFile(f *testing.F) {
	f.Add(benchYAML)
	f.Add("targets:\n  a: {url: http://127.0.0.1:1/}\nscenarios:\n  s: {steps: [1, 2], step: 1s}\n")
	f.Add("targets: &x\n  a: *x\n")
	f.Fuzz(func(t *testing.T, text string) {
		b, err := ReadFile("f.yaml", strings.NewReader(text))
		if err == nil && (len(b.Targets) == 0 || len(b.Scenarios) == 0) {
			t.Errorf("accepted a plan without targets or scenarios: %+v", b)
		}
	})
}

// A scenario's tls files are relative to the plan file; streams and the TLS version come through.
func TestReadFileTLS(t *testing.T) {
	t.Parallel()
	text := "targets:\n  a: {url: https://127.0.0.1:1/}\nscenarios:\n  s:\n    rate: 1\n    streams: 8\n" +
		"    tls: {cacert: ca.pem, cert: /abs/c.pem, key: c-key.pem, server_name: api.test, min_version: \"1.3\"}\n"
	b, err := ReadFile(filepath.Join("dir", "p.yaml"), strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	p := b.Scenarios[0].PlanFor(b.Targets[0], 0, b.Dir)
	want := transport.TLSFiles{CACert: filepath.Join("dir", "ca.pem"), Cert: "/abs/c.pem", Key: filepath.Join("dir", "c-key.pem"), ServerName: "api.test", MinVersion: "1.3"}
	if p.TLS != want || p.HTTP.Streams != 8 {
		t.Errorf("tls %+v, streams %d; want %+v, 8", p.TLS, p.HTTP.Streams, want)
	}
	_, err = ReadFile("p.yaml", strings.NewReader(strings.Replace(text, `"1.3"`, `"1.1"`, 1)))
	if err == nil || !strings.Contains(err.Error(), "scenarios.s.tls.min_version") {
		t.Errorf("min_version 1.1: got %v; want an error naming the key", err)
	}
}

// require_valid at the top of the file holds for every load scenario, and a scenario's own
// require_valid replaces it, as --require-valid would for that scenario's runs.
func TestReadFileRequireValid(t *testing.T) {
	t.Parallel()
	const text = `targets: {a: {url: http://127.0.0.1:1/}}
require_valid: true
scenarios:
  kept: {rate: 10, duration: 1s}
  relaxed: {rate: 10, duration: 1s, require_valid: false}
`
	b, err := ReadFile("p.yaml", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, s := range b.Scenarios {
		got[s.Name] = s.PlanFor(b.Targets[0], 0, b.Dir).RequireValid
	}
	if want := map[string]bool{"kept": true, "relaxed": false}; !reflect.DeepEqual(got, want) {
		t.Errorf("require_valid of each scenario's plan: got %v; want %v", got, want)
	}
	b, err = ReadFile("p.yaml", strings.NewReader("targets: {a: {url: http://127.0.0.1:1/}}\nscenarios:\n  s: {rate: 10, duration: 1s, require_valid: true}\n  t: {rate: 10, duration: 1s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !b.Scenarios[0].Plan.RequireValid || b.Scenarios[1].Plan.RequireValid {
		t.Errorf("a scenario's own require_valid: got s %v, t %v; want true, false (the default)", b.Scenarios[0].Plan.RequireValid, b.Scenarios[1].Plan.RequireValid)
	}
	for _, c := range []struct{ text, want string }{
		{"targets: {a: {url: http://127.0.0.1:1/}}\nrequire_valid: yes please\nscenarios:\n  s: {rate: 1}\n",
			`p.yaml:2:16: require_valid: want true or false, got "yes please"`},
		{"targets: {a: {url: http://127.0.0.1:1/}}\nslo: p99<1s\nscenarios:\n  s:\n    capacity: {start: 10}\n    require_valid: true\n",
			`p.yaml:6:5: scenarios.s.require_valid: a capacity search judges each step by its SLO alone, not by the validity verdict: drop require_valid here`},
	} {
		_, err := ReadFile("p.yaml", strings.NewReader(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v; want %q", c.text, err, c.want)
		}
	}
}
