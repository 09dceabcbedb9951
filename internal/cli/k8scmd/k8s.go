package k8scmd

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/bench"
	"github.com/rpcbench/rpcbench/internal/cli"
	"github.com/rpcbench/rpcbench/k8s"
	"github.com/rpcbench/rpcbench/plan"
)

// Command is the k8s command, for cli.Main: rpcbench-k8s runs it (rpcbench-k8s ARGS is rpcbench
// k8s ARGS), the Kubernetes cluster that of kubeconfig.
func Command() cli.Command { return command(kubeCluster) }

// command is the k8s command on the cluster cluster gives.
func command(cluster clusterFunc) cli.Command {
	return cli.Command{
		Name:    "k8s",
		Summary: "the commands of rpcbench-k8s: job, run, collect",
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			return runK8s(ctx, e, cluster, args)
		},
	}
}

const k8sExamples = `  rpcbench k8s job --parallelism 8 --image registry.example/rpcbench:v1 --namespace load examples/k8s-shop.yaml > job.yaml
  rpcbench k8s job --parallelism 8 --image IMAGE --scenario connections --target fast --step 2 plan.yaml   one run of a plan with several
  rpcbench k8s job --parallelism 8 --image registry.example/rpcbench:v1 --results-claim rpcbench-results -- --rate 80000 --duration 5m http://checkout.shop.svc:8080/
  rpcbench k8s job --parallelism 4 --image IMAGE --file targets.http -o job.yaml -- --rate 4000 --targets /etc/rpcbench/targets.http
  kubectl apply -f job.yaml   then: rpcbench k8s collect --namespace load --job NAME (or, with a claim mounted, rpcbench report --merge /results/NAME-seg-*.rb)`

func runK8s(ctx context.Context, e *cli.Env, cluster clusterFunc, args []string) int {
	if len(args) > 0 && slices.Contains([]string{"help", "-h", "-help", "--help"}, args[0]) {
		fmt.Fprintln(e.Stdout(), "Usage: rpcbench k8s job|run|collect [flags] …\n\n  job      write the manifests of an Indexed Job (rpcbench k8s job --help)\n  run      apply them, wait, collect, merge and report (rpcbench k8s run --help)\n  collect  fetch the result files from a Job's pods, merge and report (rpcbench k8s collect --help)")
		return cli.ExitOK
	}
	if len(args) > 0 {
		switch args[0] {
		case "job":
			return runK8sJob(e, args[1:])
		case "run":
			return runK8sRun(ctx, e, cluster, args[1:])
		case "collect":
			return runK8sCollect(ctx, e, cluster, args[1:])
		}
	}
	fmt.Fprintln(e.Stderr(), "rpcbench k8s: want a subcommand: job, run or collect\n(see: rpcbench k8s --help)")
	return cli.ExitUsage
}

// k8sNameRE is what a Job name defaults from: the target's host, made a DNS label.
var k8sNameRE = regexp.MustCompile(`[^a-z0-9-]+`)

func runK8sJob(e *cli.Env, args []string) int {
	fs := cli.NewFlagSet(e, "k8s job", "k8s job [flags] PLAN.yaml\n   or: rpcbench k8s job [flags] -- RUN-FLAGS… [URL]\n\nWrite an Indexed Job, and a ConfigMap of the plan file and its files, that runs one scenario of\nPLAN.yaml against one target (or `rpcbench run RUN-FLAGS`) split over --parallelism pods: pod I runs\n--segment-index I/N, every pod starts at one instant (--start-in from now) and writes its result\nfile into its log (for rpcbench k8s collect) or to the PersistentVolumeClaim --results-claim (for\nrpcbench report --merge). It prints the manifests: apply them with kubectl, or use rpcbench k8s run.\nSecrets of the run (secret headers, URL user-info, key-like query values) go into a Secret the pods\nread, not into the ConfigMap or the Job.", k8sExamples)
	var j k8sJobFlags
	j.define(fs)
	own, runArgs, split := splitAtDashes(args)
	pos, code, done := cli.ParseArgs(e, fs, own)
	if done {
		return code
	}
	o, err := j.options(e, pos, runArgs, split)
	if err != nil {
		return cli.Fail(e, "k8s job", err, cli.ExitUsage)
	}
	cm, secret, job, err := k8s.Manifests(o)
	if err != nil {
		return cli.Fail(e, "k8s job", cli.Usagef("%s", k8sFlagNames(err)), cli.ExitUsage)
	}
	y, err := k8s.YAML(cm, secret, job)
	if err != nil {
		return cli.Fail(e, "k8s job", err, cli.ExitCannotStart)
	}
	write := func(w io.Writer) error { _, err := w.Write(y); return err }
	if j.out == "" {
		err = write(e.Stdout())
	} else {
		err = cli.WriteOutput(j.out, write)
	}
	if err != nil {
		return cli.Fail(e, "k8s job", err, cli.ExitCannotStart)
	}
	then := fmt.Sprintf("rpcbench report --merge %s/%s-seg-*.rb (from the claim %s)", k8s.ResultsDir, o.Name, o.ResultsClaim)
	if o.ResultsClaim == "" {
		then = "rpcbench k8s collect --job " + o.Name
		if o.Namespace != "" {
			then += " --namespace " + o.Namespace
		}
	}
	if note := secretNote(o); note != "" {
		fmt.Fprintf(e.Stderr(), "rpcbench k8s job: %s\n", note)
	}
	fmt.Fprintf(e.Stderr(), "rpcbench k8s job: %d generators start at %s; then: %s\n", o.Parallelism, o.StartAt.Format(time.RFC3339), then)
	return cli.ExitOK
}

// secretEnv is the prefix of the environment variables that carry a run's secrets to the pods.
const secretEnv = "RPCBENCH_SECRET_"

// secretArgs returns args with each secret they carry (plan.ReplaceArgSecrets: a secret header's
// value, a URL's user-info, a key-like query value) replaced by $(RPCBENCH_SECRET_K), which
// Kubernetes expands from the container's environment, and those secrets by variable name.
func secretArgs(args []string) ([]string, map[string]string) {
	secrets := map[string]string{}
	named := map[string]string{} // value → variable: a secret given twice is one variable
	env := func(v string) string {
		if named[v] == "" {
			named[v] = secretEnv + strconv.Itoa(len(named)+1)
			secrets[named[v]] = v
		}
		return "$(" + named[v] + ")"
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = plan.ReplaceArgSecrets(a, env)
	}
	if len(secrets) == 0 {
		return out, nil
	}
	return out, secrets
}

// holdsSecrets reports whether a file has a line that reads as a secret header or a URL with a
// secret (what plan.RedactArg hides).
func holdsSecrets(b []byte) bool {
	for line := range strings.Lines(string(b)) {
		if line = strings.TrimSpace(line); plan.RedactArg(line) != line || jsonHoldsSecrets(line) {
			return true
		}
	}
	return false
}

// jsonHoldsSecrets reports whether line is a JSON object (a target of the JSON format, a line of
// data) naming a secret header or query parameter, or a URL with a password, at any depth.
func jsonHoldsSecrets(line string) bool {
	if !strings.HasPrefix(line, "{") {
		return false
	}
	var v any
	if json.Unmarshal([]byte(line), &v) != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if plan.Secret(k) || walk(x) {
					return true
				}
			}
		case []any:
			for _, x := range v {
				if walk(x) {
					return true
				}
			}
		case string:
			return plan.RedactArg(v) != v
		}
		return false
	}
	return walk(v)
}

// sendsSecrets reports whether a run of p sends a secret (one plan.Plan.Redacted hides), its
// setup included.
func sendsSecrets(prep *plan.Prepared) bool {
	found := false
	for ; prep != nil; prep = prep.Setup {
		prep.Plan.ReplaceSecrets(func(s string) string { found = true; return s })
	}
	return found
}

// secretNote says where the secrets of the Job's run went, or "" when it has none.
func secretNote(o k8s.Options) string {
	var said []string
	if len(o.Secrets) > 0 {
		what, them := fmt.Sprintf("the %d secrets of the run's flags are", len(o.Secrets)), "them"
		if len(o.Secrets) == 1 {
			what, them = "the secret of the run's flags is", "it"
		}
		said = append(said, fmt.Sprintf("%s in the Secret %s, which the pods read into their environment (%s1…); their arguments name %s as $(%s1)…", what, o.Name, secretEnv, them, secretEnv))
	}
	if len(o.Files) > 0 && o.FilesSecret {
		said = append(said, fmt.Sprintf("the run's files hold secrets: they are in the Secret %s, mounted at %s, not in a ConfigMap", o.Name, k8s.PlanDir))
	}
	return strings.Join(said, "; ")
}

// k8sJobFlags are the flags of `k8s job` and `k8s run` that make the manifests.
type k8sJobFlags struct {
	o        k8s.Options
	files    []string
	out      string
	startIn  time.Duration
	scenario string
	target   string
	step     int
}

func (j *k8sJobFlags) define(fs *flag.FlagSet) {
	o := &j.o
	j.startIn = 2 * time.Minute
	fs.IntVar(&o.Parallelism, "parallelism", 0, "`N` generators: pods at once, one segment each")
	fs.StringVar(&o.Image, "image", "", "the `IMAGE` of the pods, whose entrypoint is rpcbench")
	fs.StringVar(&o.Namespace, "namespace", "", "the `NAMESPACE` of the Job (default: kubectl's)")
	fs.StringVar(&o.Name, "name", "", "the `NAME` of the Job, its ConfigMap, its Secret and its result files (default: rpcbench-SCENARIO-TARGET of a plan file, rpcbench-HOST of a URL)")
	fs.StringVar(&o.ResultsClaim, "results-claim", "", "the PersistentVolumeClaim `PVC` the pods write their result files to (ReadWriteMany when they spread over nodes); default: each pod prints its result file into its log, for rpcbench k8s collect")
	fs.Var(cli.PositiveDuration(&j.startIn), "start-in", "start every pod's schedule this long after now: time to schedule the pods and pull the image")
	fs.StringVar(&o.CPU, "cpu", k8s.DefaultCPU, "each pod's CPU request and limit (`QUANTITY`)")
	fs.StringVar(&o.Memory, "memory", k8s.DefaultMemory, "each pod's memory request and limit (`QUANTITY`)")
	fs.IntVar(&o.Retries, "retries", k8s.DefaultRetries, "start a failed pod again up to `N` times (not after a usage error)")
	fs.Func("file", "put `FILE` (a target, data or body file) into the Job's ConfigMap (its Secret when it holds a secret header or URL), at "+k8s.PlanDir+"/BASENAME in the pods (repeatable)", func(f string) error {
		j.files = append(j.files, f)
		return nil
	})
	fs.StringVar(&j.scenario, "scenario", "", "the `NAME` of the plan file's scenario to run (needed when it has several)")
	fs.StringVar(&j.target, "target", "", "the `NAME` of the plan file's target to run it against (needed when it has several)")
	fs.IntVar(&j.step, "step", 0, "the step `K` (from 1) of a scenario with steps")
}

// options makes the Job's options from the flags and either one plan file (pos) or the run's
// flags after -- (runArgs, split).
func (j *k8sJobFlags) options(e *cli.Env, pos, runArgs []string, split bool) (k8s.Options, error) {
	o := j.o
	switch {
	case len(pos) == 1 && !split:
		if err := j.planArgs(&o, pos[0]); err != nil {
			return o, err
		}
	case len(pos) == 0 && split:
		if j.scenario != "" || j.target != "" || j.step != 0 {
			return o, cli.Usagef("--scenario, --target and --step choose a run of a plan file: give PLAN.yaml instead of -- RUN-FLAGS")
		}
		url, err := cli.CheckRunArgs(e, runArgs)
		if err != nil {
			return o, err
		}
		if o.Name == "" {
			o.Name = defaultJobName(url)
		}
		o.Args, o.Secrets = secretArgs(append([]string{"run"}, runArgs...))
	default:
		return o, cli.Usagef("want a plan file (PLAN.yaml), or the run's flags and URL after --, e.g. -- --rate 1000 --duration 1m URL")
	}
	if len(j.files) > 0 {
		if o.Files == nil {
			o.Files = map[string][]byte{}
		}
		for _, f := range j.files {
			b, err := os.ReadFile(f)
			if err != nil {
				return o, cli.Usagef("--file: %v", err)
			}
			if _, dup := o.Files[filepath.Base(f)]; dup {
				return o, cli.Usagef("--file %s: a file named %s is in the ConfigMap already", f, filepath.Base(f))
			}
			o.Files[filepath.Base(f)] = b
			// a run that sends secrets may take the rest of them from its files (the data of a
			// templated Authorization header): they all go into the Secret then
			o.FilesSecret = o.FilesSecret || len(o.Secrets) > 0 || holdsSecrets(b)
		}
	}
	o.StartAt = time.Now().Add(j.startIn).UTC()
	return o, nil
}

// planArgs checks the plan file and the run chosen in it, and sets the Job's files, arguments
// and default name: pods run `rpcbench run --plan` on the plan file in their ConfigMap.
func (j *k8sJobFlags) planArgs(o *k8s.Options, file string) error {
	b, s, t, k, err := cli.SelectRun(file, j.scenario, j.target, j.step)
	if err != nil {
		return err
	}
	if s.Replay != nil {
		return cli.Usagef("%s: scenario %s is a replay, which one generator sends whole: run it with rpcbench run --plan or rpcbench bench, not as a Job of segments", file, s.Name)
	}
	if len(t.Command) > 0 {
		return cli.Usagef("%s: target %s has a command: a Job's pods do not start targets, they send to a running service; give a target with only a url: (e.g. http://NAME.NAMESPACE.svc:8080/)", file, t.Name)
	}
	one := &plan.Bench{File: b.File, Dir: b.Dir, Targets: []plan.BenchTarget{t}, Scenarios: []plan.Scenario{s}}
	if len(s.Steps) > 0 && !s.Alone && s.Sweep == nil { // run k is step k: keep that one
		one.Scenarios[0].Steps = s.Steps[k : k+1]
	}
	files, err := planFiles(file, s, nil)
	if err != nil {
		return err
	}
	checked, err := bench.Check(one, nil)
	if err != nil {
		return cli.Usagef("%s", strings.ReplaceAll(err.Error(), "plan: ", ""))
	}
	o.Files, o.FilesSecret = files, sendsSecrets(checked.Prepared(s.Name, t.Name, 0)) // one step: its first
	for _, b := range files {
		o.FilesSecret = o.FilesSecret || holdsSecrets(b)
	}
	o.Args = []string{"run", "--plan", k8s.PlanDir + "/" + filepath.Base(file), "--scenario", s.Name, "--target", t.Name}
	if len(s.Steps) > 0 || s.Runs() > 1 {
		o.Args = append(o.Args, "--step", strconv.Itoa(k+1))
	}
	if o.Name == "" {
		o.Name = dnsName("rpcbench-" + s.Name + "-" + t.Name)
	}
	return nil
}

// k8sFlagNames names the flags of the problems k8s.Options.Validate finds.
func k8sFlagNames(err error) string {
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		l = strings.TrimPrefix(l, "k8s: ")
		l = strings.Replace(l, "results claim", "results-claim", 1)
		for _, name := range []string{"name", "namespace", "image", "parallelism", "cpu", "memory", "results-claim", "retries", "file"} {
			if strings.HasPrefix(l, name+" ") {
				l = "--" + l
				break
			}
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// splitAtDashes splits args at the first "--".
func splitAtDashes(args []string) (before, after []string, found bool) {
	i := slices.Index(args, "--")
	if i < 0 {
		return args, nil, false
	}
	return args[:i], args[i+1:], true
}

// defaultJobName names a Job after its target's host: rpcbench-checkout-shop-svc.
func defaultJobName(url string) string {
	host := url
	if _, rest, ok := strings.Cut(url, "://"); ok {
		host = rest
	}
	host, _, _ = strings.Cut(host, "/")
	if at := strings.LastIndex(host, "@"); at >= 0 {
		host = host[at+1:] // no user-info in a name
	}
	host, _, _ = strings.Cut(host, ":")
	return dnsName("rpcbench-" + host)
}

// dnsName makes s a DNS-1123 label of at most 52 characters: lower case, runs of other characters
// made one '-'.
func dnsName(s string) string {
	name := strings.Trim(k8sNameRE.ReplaceAllString(strings.ToLower(s), "-"), "-")
	name = strings.TrimRight(name[:min(len(name), 52)], "-")
	if name == "" || name == "rpcbench" {
		return "rpcbench"
	}
	return name
}

// insideDir returns an error when path, its links followed, is not in dir (its links followed): a
// link beside a plan file to a file elsewhere, which would put that file into the ConfigMap.
func insideDir(dir, path string) error {
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	if rel, err := filepath.Rel(realDir, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return errors.New("a link to a file outside the plan file's directory")
	}
	return nil
}

// planFiles returns the files of a plan file's run for a Job's ConfigMap: the plan file itself and
// the files the scenario reads, which must lie beside it (a ConfigMap's keys are flat names);
// extra are further files (--file), by base name.
func planFiles(planFile string, s plan.Scenario, extra []string) (map[string][]byte, error) {
	files := map[string][]byte{}
	add := func(flag, path string) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return cli.Usagef("%s: %v", flag, err)
		}
		name := filepath.Base(path)
		if _, dup := files[name]; dup {
			return cli.Usagef("%s: two files named %s: the pods find them all in %s", flag, name, k8s.PlanDir)
		}
		files[name] = b
		return nil
	}
	if err := add(planFile, planFile); err != nil {
		return nil, err
	}
	for _, name := range s.Plan.Files() {
		if filepath.IsAbs(name) || strings.ContainsAny(filepath.ToSlash(name), "/") {
			return nil, cli.Usagef("%s: scenario %s reads %s: a Job's pods find the plan's files beside it in %s, so want a file in the plan file's directory named without a directory", planFile, s.Name, name, k8s.PlanDir)
		}
		path := filepath.Join(filepath.Dir(planFile), name)
		if err := insideDir(filepath.Dir(planFile), path); err != nil {
			return nil, cli.Usagef("%s: scenario %s reads %s, %v: a Job's ConfigMap takes the plan's own files only; copy the file beside the plan file", planFile, s.Name, name, err)
		}
		if err := add(planFile, path); err != nil {
			return nil, err
		}
	}
	for _, f := range extra {
		if err := add("--file", f); err != nil {
			return nil, err
		}
	}
	return files, nil
}
