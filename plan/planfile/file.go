package planfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/check"
	"github.com/rpcbench/rpcbench/plan"

	"github.com/rpcbench/rpcbench/result"
	"github.com/rpcbench/rpcbench/schedule"
	"go.yaml.in/yaml/v3"
)

// MaxFileSize bounds the plan files ReadFile reads.
const MaxFileSize = 4 << 20

// ReadFile reads a plan file (YAML; the schema is in docs/plan-files.md) from r. name labels the
// errors, and its directory becomes Bench.Dir, which the plan's relative file names are relative
// to. Every problem is returned at once (errors.Join of *FileError), each with its line, column and
// key; unknown keys are errors. The scenarios are checked against the first target as
// Plan.Validate checks a run; their files are read only when they run (Prepare).
func ReadFile(name string, r io.Reader) (*plan.Bench, error) {
	text, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, &plan.FileError{File: name, Msg: err.Error()}
	}
	if len(text) > MaxFileSize {
		return nil, &plan.FileError{File: name, Msg: fmt.Sprintf("larger than %d MiB: want a plan file", MaxFileSize>>20)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, yamlError(name, err)
	}
	fr := &fileReader{file: name}
	b := &plan.Bench{File: name, Dir: filepath.Dir(name)}
	if len(doc.Content) == 0 {
		return nil, &plan.FileError{File: name, Msg: "empty: want targets: and scenarios:"}
	}
	fr.bench(doc.Content[0], b)
	if len(fr.errs) > 0 {
		return nil, errors.Join(fr.errs...)
	}
	return b, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlError turns a YAML syntax error into a FileError with its line.
func yamlError(name string, err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &plan.FileError{File: name, Line: line, Col: 1, Msg: "not valid YAML: " + m[2]}
	}
	return &plan.FileError{File: name, Msg: "not valid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

// fileReader walks the YAML nodes of a plan file and gathers every problem.
type fileReader struct {
	file string
	errs []error
	// monNodes are the monitor.targets nodes by target name, for the errors of checkMonitors.
	monNodes map[string]*yaml.Node
	// loads are the load: keys of the endpoints and calls of the scenario being read.
	loads []partLoad
	// targetNames are the names of the file's targets, for the scenarios that name them (diff:).
	targetNames []string
	// targets are the plan's targets, read before its scenarios (for a sweep of a target's flag).
	targets []plan.BenchTarget
}

// partLoad is the load: of an endpoint or a call: its own level when run alone.
type partLoad struct {
	name  string
	level float64
	node  *yaml.Node
	path  string
}

func (f *fileReader) errorf(n *yaml.Node, key, format string, a ...any) {
	e := &plan.FileError{File: f.file, Key: key, Msg: fmt.Sprintf(format, a...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	f.errs = append(f.errs, e)
}

// resolve follows an alias.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// mapping calls each for every key of the mapping n (at path) in file order, after checking that
// each key is one of known and given once; unknown or repeated keys are errors at the key.
func (f *fileReader) mapping(n *yaml.Node, path string, known []string, each func(key string, k, v *yaml.Node)) bool {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		f.errorf(n, path, "want a mapping (key: value lines), got %s", kindName(n))
		return false
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		kp := joinKey(path, k.Value)
		switch {
		case seen[k.Value]:
			f.errorf(k, kp, "given twice")
			continue
		case known != nil && !contains(known, k.Value):
			f.errorf(k, kp, "unknown key %q; want one of: %s", k.Value, strings.Join(known, ", "))
			continue
		}
		seen[k.Value] = true
		each(k.Value, k, v)
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}

// scalar returns the text of a scalar node; false (with an error) for anything else.
func (f *fileReader) scalar(n *yaml.Node, path, want string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		f.errorf(n, path, "want %s, got %s", want, kindName(n))
		return "", false
	}
	return n.Value, true
}

func (f *fileReader) str(n *yaml.Node, path string) string {
	s, _ := f.scalar(n, path, "a text")
	return s
}

func (f *fileReader) duration(n *yaml.Node, path string) time.Duration {
	s, ok := f.scalar(n, path, "a duration such as 30s or 5m")
	if !ok {
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		f.errorf(n, path, "%q is not a duration: want e.g. 300ms, 30s, 5m or 1h30m", s)
		return 0
	}
	return d
}

func (f *fileReader) number(n *yaml.Node, path string) float64 {
	s, ok := f.scalar(n, path, "a number")
	if !ok {
		return 0
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	if err != nil || v < 0 || v != v {
		f.errorf(n, path, "%q: want a number of 0 or more", s)
		return 0
	}
	return v
}

func (f *fileReader) count(n *yaml.Node, path string) int {
	s, ok := f.scalar(n, path, "a whole number")
	if !ok {
		return 0
	}
	v, err := strconv.Atoi(strings.ReplaceAll(s, "_", ""))
	if err != nil || v < 1 {
		f.errorf(n, path, "%q: want a whole number of 1 or more", s)
		return 0
	}
	return v
}

func (f *fileReader) boolean(n *yaml.Node, path string) bool {
	var b bool
	if n.Kind != yaml.ScalarNode || n.Decode(&b) != nil {
		f.errorf(n, path, "want true or false, got %s", kindName(n))
	}
	return b
}

// strings reads a list of texts; one text is a list of one.
func (f *fileReader) strings(n *yaml.Node, path string) []string {
	if n.Kind == yaml.ScalarNode {
		return []string{f.str(n, path)}
	}
	if n.Kind != yaml.SequenceNode {
		f.errorf(n, path, "want a list of texts, got %s", kindName(n))
		return nil
	}
	var out []string
	for i, c := range n.Content {
		out = append(out, f.str(resolve(c), fmt.Sprintf("%s[%d]", path, i)))
	}
	return out
}

// outputs reads the live outputs of a plan file: a list of TYPE=URL texts (one text is a list of
// one), each kept with its place for the messages of the command that starts them.
func (f *fileReader) outputs(n *yaml.Node, path string) []plan.BenchOutput {
	items := []*yaml.Node{n}
	switch n.Kind {
	case yaml.ScalarNode:
	case yaml.SequenceNode:
		items = n.Content
	default:
		f.errorf(n, path, "want a list of TYPE=URL texts (e.g. - prometheus-rw=http://127.0.0.1:9090/api/v1/write), got %s", kindName(n))
		return nil
	}
	var out []plan.BenchOutput
	for i, c := range items {
		c = resolve(c)
		kp := path
		if n.Kind == yaml.SequenceNode {
			kp = fmt.Sprintf("%s[%d]", path, i)
		}
		if v := f.str(c, kp); v != "" {
			out = append(out, plan.BenchOutput{Spec: v, Line: c.Line, Col: c.Column})
		}
	}
	return out
}

// reports reads reports: a list of plan.BenchReports, each given once.
func (f *fileReader) reports(n *yaml.Node, path string) []string {
	want := "want a list of " + strings.Join(plan.BenchReports, " and ") + ", e.g. [vegeta, plot]"
	if n.Kind != yaml.SequenceNode {
		f.errorf(n, path, "%s, got %s", want, kindName(n))
		return nil
	}
	var out []string
	for i, c := range n.Content {
		kp := fmt.Sprintf("%s[%d]", path, i)
		v, ok := f.scalar(resolve(c), kp, "a report")
		switch {
		case !ok:
		case !contains(plan.BenchReports, v):
			f.errorf(c, kp, "%q: %s", v, want)
		case contains(out, v):
			f.errorf(c, kp, "%s is given twice", v)
		default:
			out = append(out, v)
		}
	}
	return out
}

// command reads a command: one text for /bin/sh -c, or a list, the argument vector.
func (f *fileReader) command(n *yaml.Node, path string) (argv []string, shell bool) {
	argv = f.strings(n, path)
	if n.Kind == yaml.ScalarNode {
		shell = true
	}
	if len(argv) == 0 || strings.TrimSpace(argv[0]) == "" {
		f.errorf(n, path, "empty command: want e.g. \"./server --port 8080\" or [./server, --port, \"8080\"]")
		return nil, false
	}
	return argv, shell
}

// junit reads a command scenario's junit: the report's file (or glob), or true for one in the run
// directory; false is none.
func (f *fileReader) junit(n *yaml.Node, path string) (file string, runDir bool) {
	const want = "the JUnit XML file the command writes (e.g. report.xml, or a glob such as target/surefire-reports/TEST-*.xml), or true for one in the run directory given in $" + plan.EnvJUnit
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		return "", f.boolean(n, path)
	}
	s, ok := f.scalar(n, path, want)
	if !ok {
		return "", false
	}
	if strings.TrimSpace(s) == "" {
		f.errorf(n, path, "empty: want %s", want)
		return "", false
	}
	if _, err := filepath.Match(s, ""); err != nil {
		f.errorf(n, path, "%q: a bad glob: %v", s, err)
	}
	return s, false
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// env reads a mapping of environment variables into "NAME=value" texts.
func (f *fileReader) env(n *yaml.Node, path string) []string {
	var out []string
	f.mapping(n, path, nil, func(key string, k, v *yaml.Node) {
		if !envName.MatchString(key) {
			f.errorf(k, joinKey(path, key), "not a variable name: want letters, digits and _")
			return
		}
		out = append(out, key+"="+f.str(v, joinKey(path, key)))
	})
	return out
}

// headers reads headers as a mapping (Name: value) or a list of "Name: value" texts.
func (f *fileReader) headers(n *yaml.Node, path string) []result.RequestHeader {
	var out []result.RequestHeader
	if n.Kind == yaml.SequenceNode || n.Kind == yaml.ScalarNode {
		for i, s := range f.strings(n, path) {
			h, err := plan.ParseHeader(s)
			if err != nil {
				f.errorf(n, fmt.Sprintf("%s[%d]", path, i), "%v", err)
				continue
			}
			out = append(out, h)
		}
		return out
	}
	f.mapping(n, path, nil, func(key string, k, v *yaml.Node) {
		h, err := plan.ParseHeader(key + ": " + f.str(v, joinKey(path, key)))
		if err != nil {
			f.errorf(k, joinKey(path, key), "%v", err)
			return
		}
		out = append(out, h)
	})
	return out
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// name checks a target or scenario name, which names result files.
func (f *fileReader) name(k *yaml.Node, path string) bool {
	if !nameRE.MatchString(k.Value) || len(k.Value) > 64 {
		f.errorf(k, path, "name %q: want letters, digits, '.', '_' and '-' (it names result files), at most 64", k.Value)
		return false
	}
	return true
}

func (f *fileReader) bench(root *yaml.Node, b *plan.Bench) {
	var slo plan.SLO
	var valid bool
	var scen *yaml.Node
	f.mapping(root, "", []string{"targets", "scenarios", "slo", "require_valid", "stats", "outputs", "reports"}, func(key string, k, v *yaml.Node) {
		switch key {
		case "targets":
			f.mapping(v, key, nil, func(name string, k, v *yaml.Node) {
				if f.name(k, joinKey("targets", name)) {
					b.Targets = append(b.Targets, f.target(name, v))
					f.targetNames = append(f.targetNames, name)
				}
			})
		case "scenarios":
			scen = v
		case "slo":
			slo = f.slo(v, key)
		case "require_valid":
			valid = f.boolean(v, key)
		case "stats":
			b.Stats = f.stats(v, key)
		case "outputs":
			b.Outputs = f.outputs(v, key)
		case "reports":
			b.Reports = f.reports(v, key)
		}
	})
	f.checkMonitors(b)
	f.targets = b.Targets
	if scen != nil {
		f.mapping(scen, "scenarios", nil, func(name string, k, v *yaml.Node) {
			if !f.name(k, joinKey("scenarios", name)) {
				return
			}
			s := f.scenario(name, v, slo, valid)
			s.Line, s.Col = k.Line, k.Column
			b.Scenarios = append(b.Scenarios, s)
		})
	}
	if len(b.Targets) == 0 {
		f.errorf(root, "targets", "no target: want e.g.\n  targets:\n    mine:\n      url: http://127.0.0.1:8080/")
	}
	if len(b.Scenarios) == 0 {
		f.errorf(root, "scenarios", "no scenario: want e.g.\n  scenarios:\n    read:\n      rate: 100\n      duration: 30s")
	}
}

func (f *fileReader) slo(v *yaml.Node, path string) plan.SLO {
	s, err := plan.ParseSLO(f.str(v, path))
	if err != nil {
		f.errorf(v, path, "%s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return s
}

var targetKeys = []string{"url", "command", "env", "ready", "ready_timeout", "monitor", "profile"}

func (f *fileReader) target(name string, n *yaml.Node) plan.BenchTarget {
	t := plan.BenchTarget{Name: name}
	path := joinKey("targets", name)
	var profileAt *yaml.Node // where profile: stands
	f.mapping(n, path, targetKeys, func(key string, k, v *yaml.Node) {
		kp := joinKey(path, key)
		switch key {
		case "url":
			t.URL = f.str(v, kp)
			if err := plan.CheckURL(t.URL); t.URL != "" && err != nil {
				f.errorf(v, kp, "%v", err)
			}
		case "command":
			t.Command, t.Shell = f.command(v, kp)
		case "env":
			t.Env = f.env(v, kp)
		case "ready":
			t.Ready = f.str(v, kp)
			if err := plan.CheckURL(t.Ready); t.Ready != "" && err != nil {
				f.errorf(v, kp, "%v", err)
			}
		case "ready_timeout":
			t.ReadyTimeout = f.duration(v, kp)
		case "monitor":
			t.Monitor = f.monitor(v, kp)
		case "profile":
			t.ProfileURL, t.ProfileCommand = f.profile(v, kp)
			profileAt = v
		}
	})
	if t.URL == "" && resolve(n).Kind == yaml.MappingNode {
		f.errorf(n, path, "no url: want e.g. url: http://127.0.0.1:8080/")
	}
	if strings.Contains(t.ProfileCommand, "{pid}") && len(t.Command) == 0 && len(t.Monitor.PIDs) == 0 {
		f.errorf(profileAt, joinKey(path, "profile.command"), "{pid} of which process: give the target a command: (its process is the pid) or monitor: {pid: N}")
	}
	return t
}

var commandKeys = []string{"command", "env", "timeout", "junit", "build", "repeat"}

var loadKeys = []string{
	// requests
	"endpoints", "path", "method", "body", "targets_file", "targets_format", "order", "data", "data_order",
	"rewrite_host", "setup", "setup_count", "weights", "header", "jsonrpc", "checks", "protocol", "subscribe",
	// load
	"model", "rate", "duration", "requests", "connections", "stages", "steps", "step", "ramp",
	"ramp_from", "warmup", "grace", "interval", "send_slack",
	// travel
	"timeout", "connect_timeout", "insecure", "no_reuse", "streams", "sender", "tls",
	// judging
	"slo", "require_valid",
	// a capacity search instead of a load
	"capacity",
	// a recording sent instead of a load
	"replay",
	// each endpoint or call alone instead of the mix
	"alone",
	// the figures of the report's side-by-side tables
	"stats",
	// one parameter varied over runs
	"sweep",
	// the answers of several targets compared instead of a load against each
	"diff",
}

func (f *fileReader) scenario(name string, n *yaml.Node, slo plan.SLO, valid bool) plan.Scenario {
	s := plan.Scenario{Name: name}
	path := joinKey("scenarios", name)
	known, isCmd := loadKeys, false
	if n.Kind == yaml.MappingNode {
		for i := 0; i < len(n.Content); i += 2 {
			if n.Content[i].Value == "command" {
				known, isCmd = commandKeys, true
			}
		}
	}
	s.Plan.SLO, s.Plan.RequireValid = slo, valid
	f.loads = nil
	var top plan.Endpoint // path, method, body, header of the one endpoint when endpoints: is not given
	topSet := false
	var sweepAt *yaml.Node // where sweep: stands, for the problems of what goes with it
	f.mapping(n, path, known, func(key string, k, v *yaml.Node) {
		kp := joinKey(path, key)
		p, l, tr := &s.Plan, &s.Plan.Load, &s.Plan.Traffic
		switch key {
		case "command":
			s.Command, s.Shell = f.command(v, kp)
		case "env":
			s.Env = f.env(v, kp)
		case "junit":
			s.JUnit, s.JUnitRunDir = f.junit(v, kp)
		case "build":
			s.Build, s.BuildShell = f.command(v, kp)
		case "repeat":
			s.Repeat = f.count(v, kp)
		case "timeout":
			if isCmd {
				s.Timeout = f.duration(v, kp)
			} else {
				p.HTTP.Timeout = f.duration(v, kp)
			}
		case "endpoints":
			p.Endpoints = f.endpoints(v, kp)
		case "path":
			top.URL, topSet = f.str(v, kp), true
		case "method":
			top.Method, topSet = f.str(v, kp), true
		case "body":
			top.Body, topSet = []byte(f.str(v, kp)), true
		case "header":
			tr.Header = f.headers(v, kp)
		case "targets_file":
			tr.Targets = f.str(v, kp)
		case "targets_format":
			tr.TargetsFormat = f.choice(v, kp, plan.TargetsHTTP, plan.TargetsJSON)
		case "rewrite_host":
			tr.RewriteHost = f.boolean(v, kp)
		case "order":
			tr.Order = plan.Order(f.choice(v, kp, string(plan.Sequential), string(plan.Random)))
		case "data":
			tr.Data = f.str(v, kp)
		case "data_order":
			tr.DataOrder = plan.DataOrder(f.str(v, kp))
		case "setup":
			tr.Setup = f.str(v, kp)
		case "setup_count":
			tr.SetupCount = uint64(f.count(v, kp))
		case "weights":
			tr.Weights = map[string]float64{}
			f.mapping(v, kp, nil, func(key string, k, v *yaml.Node) { tr.Weights[key] = f.number(v, joinKey(kp, key)) })
		case "jsonrpc":
			p.JSONRPC = f.jsonrpc(v, kp)
		case "subscribe":
			p.Subscribe = f.subscribe(v, kp)
		case "checks":
			p.Checks = f.checks(v, kp)
		case "protocol":
			p.Protocol = result.Proto(f.str(v, kp))
		case "model":
			l.Model = plan.Model(f.choice(v, kp, string(plan.Open), string(plan.Closed)))
		case "rate":
			if s, ok := f.scalar(v, kp, "a rate such as 1000 or 300/m"); ok {
				r, err := plan.ParseRate(s)
				if err != nil {
					f.errorf(v, kp, "%v", err)
				}
				l.Rate = r
			}
		case "duration":
			l.Duration = f.duration(v, kp)
		case "requests":
			l.Requests = uint64(f.count(v, kp))
		case "connections":
			l.Connections = f.count(v, kp)
		case "stages":
			l.Stages = f.stages(v, kp)
		case "steps":
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				f.errorf(v, kp, "want a list of levels, e.g. [50, 100, 200, 500]")
				break
			}
			for i, c := range v.Content {
				x := f.number(resolve(c), fmt.Sprintf("%s[%d]", kp, i))
				if x <= 0 {
					f.errorf(c, fmt.Sprintf("%s[%d]", kp, i), "want a level above 0")
				}
				s.Steps = append(s.Steps, x)
			}
		case "step":
			s.Step = f.duration(v, kp)
		case "ramp":
			s.Ramp = f.duration(v, kp)
		case "ramp_from":
			if x, ok := f.scalar(v, kp, "previous"); ok && x != plan.RampFromPrevious {
				f.errorf(v, kp, "%q: want previous (each step's ramp rises from the level of the step before, as k6's stages do); leave ramp_from out to hold the ramp at the step's level", x)
			} else if ok {
				s.RampFrom = x
			}
		case "warmup":
			l.Warmup = f.duration(v, kp)
		case "grace":
			l.Grace = plan.Wait(f.duration(v, kp))
		case "send_slack":
			l.SendSlack = f.duration(v, kp)
		case "interval":
			l.Interval = f.duration(v, kp)
		case "connect_timeout":
			p.HTTP.ConnectTimeout = f.duration(v, kp)
		case "insecure":
			p.HTTP.Insecure = f.boolean(v, kp)
		case "no_reuse":
			p.HTTP.DisableKeepAlive = f.boolean(v, kp)
		case "streams":
			p.HTTP.Streams = f.count(v, kp)
		case "sender":
			if x, ok := f.scalar(v, kp, "auto"); ok {
				p.HTTP.Sender = x
			}
		case "tls":
			p.TLS = f.tls(v, kp)
		case "slo":
			p.SLO = f.slo(v, kp)
		case "require_valid":
			p.RequireValid = f.boolean(v, kp)
		case "capacity":
			s.Capacity = f.capacity(v, kp)
		case "replay":
			s.Replay = f.replay(v, kp)
		case "alone":
			s.Alone = f.boolean(v, kp)
		case "stats":
			s.Stats = f.stats(v, kp)
		case "sweep":
			s.Sweep, sweepAt = f.sweep(v, kp), v
		case "diff":
			s.Diff = f.diff(v, kp)
		}
	})
	if topSet {
		if len(s.Plan.Endpoints) > 0 {
			f.errorf(n, path, "both endpoints: and path/method/body: put them in the endpoints")
		} else {
			s.Plan.Endpoints = []plan.Endpoint{top}
		}
	}
	f.steps(n, path, &s)
	f.checkCapacity(n, path, &s)
	f.checkReplay(n, path, &s)
	f.checkDiff(n, path, &s)
	f.alone(n, path, &s)
	f.checkSubscribeAlone(n, path, &s)
	f.checkSweep(sweepAt, path, &s)
	return s
}

// alone checks what goes with alone: and reads the parts' own loads into s.Loads.
func (f *fileReader) alone(n *yaml.Node, path string, s *plan.Scenario) {
	p := &s.Plan
	if s.Alone {
		switch {
		case p.Traffic.Targets != "" || p.JSONRPC.CallsFile != "":
			f.errorf(n, joinKey(path, "alone"), "runs each endpoint or call of the plan alone: give them in endpoints: or jsonrpc.calls:, not in targets_file or calls_file")
		case len(p.JSONRPC.Calls) == 0:
			for i, e := range p.Endpoints {
				if e.Name == "" {
					f.errorf(n, fmt.Sprintf("%s.endpoints[%d]", path, i), "no name: with alone: each endpoint names its own runs, e.g. {name: get, path: /v0/entity?id=1}")
				}
			}
		}
	}
	for _, pl := range f.loads {
		switch {
		case !s.Alone:
			f.errorf(pl.node, pl.path, "the level of %s's run alone: give alone: true too", pl.name)
		case s.Capacity != nil:
			f.errorf(pl.node, pl.path, "a capacity search sets the rate of %s's run alone: drop load:", pl.name)
		case len(p.Load.Stages) > 0:
			f.errorf(pl.node, pl.path, "the scenario's stages set the load of every run: drop load: or stages:")
		case pl.level <= 0:
			f.errorf(pl.node, pl.path, "want a level above 0")
		case s.PartModel() == plan.Closed && (pl.level != float64(int(pl.level)) || pl.level > plan.MaxConnections):
			f.errorf(pl.node, pl.path, "%v connections: want a whole number up to %d", pl.level, plan.MaxConnections)
		case s.Loads[pl.name] > 0:
			f.errorf(pl.node, pl.path, "%s has a load already: give it once", pl.name)
		default:
			if s.Loads == nil {
				s.Loads = map[string]float64{}
			}
			s.Loads[pl.name] = pl.level
		}
	}
	f.loads = nil
}

// stats reads a list of StatNames: [p50, p95, mean] or "p50,p95,mean".
func (f *fileReader) stats(n *yaml.Node, path string) []string {
	list := f.strings(n, path)
	st, err := plan.ParseStats(list)
	if err != nil {
		f.errorf(n, path, "%v", err)
	}
	if len(st) == 0 && err == nil {
		f.errorf(n, path, "empty: want some of %s, e.g. [p50, p95, p99, mean, stdev, requests, rps]", strings.Join(plan.StatNames, ", "))
	}
	return st
}

// load reads the load: of an endpoint or call named name: its level when run alone.
func (f *fileReader) load(n *yaml.Node, path, name string) {
	f.loads = append(f.loads, partLoad{name: name, level: f.number(n, path), node: n, path: path})
}

// steps checks what goes with steps.
func (f *fileReader) steps(n *yaml.Node, path string, s *plan.Scenario) {
	l := s.Plan.Load
	switch {
	case len(s.Steps) == 0:
		if s.Step > 0 || s.Ramp > 0 || s.RampFrom != "" {
			f.errorf(n, path, "step, ramp and ramp_from are the lengths and ramps of steps: give steps: [50, 100, …] too")
		}
	case s.RampFrom != "" && s.Ramp == 0:
		f.errorf(n, joinKey(path, "ramp_from"), "a ramp from the step before needs its length: give ramp: (e.g. ramp: 1m)")
	case s.Step == 0:
		f.errorf(n, path, "steps without their length: give step: (e.g. step: 5m)")
	case l.Rate > 0 || len(l.Stages) > 0 || l.Duration > 0 || l.Warmup > 0 || l.Requests > 0:
		f.errorf(n, path, "steps set the level and the length of each run: drop rate, stages, duration, warmup and requests (the warm-up of a step is ramp:)")
	case l.Model == plan.Closed || l.Model == "":
		if l.Connections > 0 {
			f.errorf(n, path, "with steps in the closed model, each step is a number of connections: drop connections")
		}
		for i, x := range s.Steps {
			if x != float64(int(x)) || x > plan.MaxConnections {
				f.errorf(n, fmt.Sprintf("%s.steps[%d]", path, i), "%v connections: want a whole number up to %d (or model: open for rates)", x, plan.MaxConnections)
			} else if i > 0 && s.RampFrom != "" && x < s.Steps[i-1] {
				f.errorf(n, fmt.Sprintf("%s.steps[%d]", path, i), "%v connections after %v: with ramp_from: previous the closed model's steps rise, each ramp opening connections; want steps that rise (or model: open, whose rates can ramp down)", x, s.Steps[i-1])
			}
		}
	}
}

func (f *fileReader) choice(n *yaml.Node, path string, choices ...string) string {
	s := f.str(n, path)
	if s != "" && !contains(choices, s) {
		f.errorf(n, path, "%q: want %s", s, strings.Join(choices, " or "))
	}
	return s
}

// stages reads stages as a text ("30s:1000,60s:5000") or a list of {duration, target}.
func (f *fileReader) stages(n *yaml.Node, path string) []schedule.Stage {
	if n.Kind == yaml.ScalarNode {
		st, err := plan.ParseStages(f.str(n, path))
		if err != nil {
			f.errorf(n, path, "%s", strings.ReplaceAll(err.Error(), "\n", "; "))
		}
		return st
	}
	if n.Kind != yaml.SequenceNode {
		f.errorf(n, path, "want stages as \"30s:1000,60s:5000\" or a list of {duration: 30s, target: 1000}")
		return nil
	}
	var out []schedule.Stage
	for i, c := range n.Content {
		kp := fmt.Sprintf("%s[%d]", path, i)
		var st schedule.Stage
		got := 0
		f.mapping(c, kp, []string{"duration", "target"}, func(key string, k, v *yaml.Node) {
			got++
			if key == "duration" {
				st.Duration = f.duration(v, joinKey(kp, key))
				return
			}
			s, _ := f.scalar(v, joinKey(kp, key), "a rate or a number of connections")
			r, err := plan.ParseRate(s)
			if err != nil {
				f.errorf(v, joinKey(kp, key), "%v", err)
			}
			st.Target = r
		})
		if got != 2 && resolve(c).Kind == yaml.MappingNode {
			f.errorf(c, kp, "want both duration and target")
		}
		out = append(out, st)
	}
	return out
}

var endpointKeys = []string{"name", "method", "path", "header", "body", "weight", "load"}

func (f *fileReader) endpoints(n *yaml.Node, path string) []plan.Endpoint {
	if n.Kind != yaml.SequenceNode {
		f.errorf(n, path, "want a list of endpoints, each e.g. {name: read, path: /v0/entity?id=1}")
		return nil
	}
	var out []plan.Endpoint
	for i, c := range n.Content {
		kp := fmt.Sprintf("%s[%d]", path, i)
		var e plan.Endpoint
		var load *yaml.Node
		f.mapping(c, kp, endpointKeys, func(key string, k, v *yaml.Node) {
			ep := joinKey(kp, key)
			switch key {
			case "name":
				e.Name = f.str(v, ep)
			case "method":
				e.Method = f.str(v, ep)
			case "path":
				e.URL = f.str(v, ep)
			case "header":
				e.Header = f.headers(v, ep)
			case "body":
				e.Body = []byte(f.str(v, ep))
			case "weight":
				e.Weight = f.number(v, ep)
			case "load":
				load = v
			}
		})
		if load != nil {
			f.load(load, joinKey(kp, "load"), plan.EndpointLabel(e))
		}
		out = append(out, e)
	}
	return out
}

// tls reads {cacert, cert, key, server_name, min_version}.
func (f *fileReader) tls(n *yaml.Node, path string) result.TLSFiles {
	var t result.TLSFiles
	f.mapping(n, path, []string{"cacert", "cert", "key", "server_name", "min_version"}, func(key string, k, v *yaml.Node) {
		kp := joinKey(path, key)
		switch key {
		case "cacert":
			t.CACert = f.str(v, kp)
		case "cert":
			t.Cert = f.str(v, kp)
		case "key":
			t.Key = f.str(v, kp)
		case "server_name":
			t.ServerName = f.str(v, kp)
		case "min_version":
			t.MinVersion = f.choice(v, kp, "1.2", "1.3")
		}
	})
	return t
}

func (f *fileReader) jsonrpc(n *yaml.Node, path string) plan.JSONRPC {
	var j plan.JSONRPC
	f.mapping(n, path, []string{"calls", "calls_file", "batch"}, func(key string, k, v *yaml.Node) {
		kp := joinKey(path, key)
		switch key {
		case "calls_file":
			j.CallsFile = f.str(v, kp)
		case "batch":
			j.Batch = f.count(v, kp)
		case "calls":
			if v.Kind != yaml.SequenceNode {
				f.errorf(v, kp, "want a list of calls, each e.g. {method: eth_blockNumber}")
				return
			}
			for i, c := range v.Content {
				j.Calls = append(j.Calls, f.call(c, fmt.Sprintf("%s[%d]", kp, i)))
			}
		}
	})
	return j
}

func (f *fileReader) call(n *yaml.Node, path string) plan.Call {
	var c plan.Call
	var load *yaml.Node
	f.mapping(n, path, []string{"method", "params", "name", "weight", "load"}, func(key string, k, v *yaml.Node) {
		kp := joinKey(path, key)
		switch key {
		case "method":
			c.Method = f.str(v, kp)
		case "name":
			c.Name = f.str(v, kp)
		case "weight":
			c.Weight = f.number(v, kp)
		case "load":
			load = v
		case "params":
			var x any
			if err := v.Decode(&x); err != nil {
				f.errorf(v, kp, "%v", err)
				return
			}
			b, err := json.Marshal(x)
			if err != nil {
				f.errorf(v, kp, "cannot be written as JSON: %v", err)
				return
			}
			c.Params = b
		}
	})
	if err := c.Validate(); err != nil && resolve(n).Kind == yaml.MappingNode {
		f.errorf(n, path, "%v", err)
	}
	if load != nil {
		f.load(load, joinKey(path, "load"), c.Label())
	}
	return c
}

func (f *fileReader) checks(n *yaml.Node, path string) plan.Checks {
	var c plan.Checks
	f.mapping(n, path, []string{"status", "miss", "body", "metrics"}, func(key string, k, v *yaml.Node) {
		switch key {
		case "status":
			c.Status = f.str(v, joinKey(path, key))
		case "miss":
			c.Miss = f.str(v, joinKey(path, key))
			if _, err := check.ParseStatuses(c.Miss); c.Miss != "" && err != nil {
				f.errorf(v, joinKey(path, key), "%v (the statuses that answer a miss, such as 404)", err)
			}
		case "body":
			c.Body = f.strings(v, joinKey(path, key))
		default:
			c.Metrics = f.answerMetrics(v, joinKey(path, key))
		}
	})
	return c
}

// answerMetrics reads checks.metrics: NAME: PATH lines, in file order.
func (f *fileReader) answerMetrics(n *yaml.Node, path string) []plan.AnswerMetric {
	var out []plan.AnswerMetric
	f.mapping(n, path, nil, func(key string, k, v *yaml.Node) {
		kp := joinKey(path, key)
		p, ok := f.scalar(v, kp, "a JSON path such as State.HopLatency")
		if !ok {
			return
		}
		if _, err := check.NewMetric(key, p); err != nil {
			f.errorf(v, kp, "%v", err)
			return
		}
		out = append(out, plan.AnswerMetric{Name: key, Path: p})
	})
	return out
}

func splitJoined(err error) []string {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []string
		for _, e := range j.Unwrap() {
			out = append(out, splitJoined(e)...)
		}
		return out
	}
	return []string{err.Error()}
}

// ScenarioError places err, a problem of scenario s's run against target t (from Prepare, say), in
// b's file at the scenario's key: one FileError per problem when err joins several, each naming
// the target when b has several.
func ScenarioError(b *plan.Bench, s plan.Scenario, t plan.BenchTarget, err error) error {
	key := joinKey("scenarios", s.Name)
	against := ""
	if len(b.Targets) > 1 {
		against = "against " + t.Name + ": "
	}
	var errs []error
	for _, msg := range splitJoined(err) {
		errs = append(errs, &plan.FileError{File: b.File, Line: s.Line, Col: s.Col, Key: key, Msg: against + strings.TrimPrefix(msg, "plan: ")})
	}
	return errors.Join(errs...)
}
