package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/k8s"
)

func init() {
	register(command{name: "k8s", summary: "write the Kubernetes manifests that run a run split over N generators (an Indexed Job)", run: runK8s})
}

const k8sExamples = `  rpcbench k8s job --parallelism 8 --image registry.example/rpcbench:v1 --results-claim rpcbench-results -- --rate 80000 --duration 5m http://checkout.shop.svc:8080/
  rpcbench k8s job --parallelism 4 --image IMAGE --results-claim results --file targets.http -o job.yaml -- --rate 4000 --targets /etc/rpcbench/targets.http
  kubectl apply -f job.yaml   then, once the Job completed, with the claim mounted: rpcbench report --merge /results/NAME-seg-*.rb`

func runK8s(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || args[0] != "job" {
		if len(args) > 0 && isHelpWord(args[0]) {
			args = []string{"job", "--help"}
		} else {
			fmt.Fprintln(e.stderr, "rpcbench k8s: want a subcommand: job\n(see: rpcbench k8s job --help)")
			return ExitUsage
		}
	}
	return runK8sJob(e, args[1:])
}

// k8sNameRE is what a Job name defaults from: the target's host, made a DNS label.
var k8sNameRE = regexp.MustCompile(`[^a-z0-9-]+`)

func runK8sJob(e *env, args []string) int {
	fs := newFlagSet(e, "k8s job", "k8s job [flags] -- RUN-FLAGS… [URL]\n\nWrite an Indexed Job (and a ConfigMap of --file files) that runs `rpcbench run RUN-FLAGS` split over\n--parallelism pods: pod I runs --segment-index I/N, every pod starts at one instant (--start-in from\nnow), and writes its result file to the PersistentVolumeClaim --results-claim, to merge with\n`rpcbench report --merge`. It prints the manifests: apply them with kubectl.", k8sExamples)
	var o k8s.Options
	var files []string
	var out string
	startIn := 2 * time.Minute
	fs.IntVar(&o.Parallelism, "parallelism", 0, "`N` generators: pods at once, one segment each")
	fs.StringVar(&o.Image, "image", "", "the `IMAGE` of the pods, whose entrypoint is rpcbench")
	fs.StringVar(&o.Namespace, "namespace", "", "the `NAMESPACE` of the Job (default: kubectl's)")
	fs.StringVar(&o.Name, "name", "", "the `NAME` of the Job, its ConfigMap and its result files (default: rpcbench-HOST of the target)")
	fs.StringVar(&o.ResultsClaim, "results-claim", "", "the PersistentVolumeClaim `PVC` the pods write their result files to (ReadWriteMany when they spread over nodes)")
	fs.Var(positiveDurationFlag{durationFlag{&startIn}}, "start-in", "start every pod's schedule this long after now: time to schedule the pods and pull the image")
	fs.StringVar(&o.CPU, "cpu", k8s.DefaultCPU, "each pod's CPU request and limit (`QUANTITY`)")
	fs.StringVar(&o.Memory, "memory", k8s.DefaultMemory, "each pod's memory request and limit (`QUANTITY`)")
	fs.IntVar(&o.Retries, "retries", k8s.DefaultRetries, "start a failed pod again up to `N` times (not after a usage error)")
	fs.Var(appended(&files, asIs), "file", "put `FILE` (a target or data file) into the Job's ConfigMap, at "+k8s.PlanDir+"/BASENAME in the pods (repeatable)")
	fs.StringVar(&out, "o", "", "write the manifests to `FILE` instead of stdout")
	own, runArgs, split := splitAtDashes(args)
	pos, code, done := parseArgs(e, fs, own)
	if done {
		return code
	}
	if len(pos) > 0 || !split {
		fmt.Fprintf(e.stderr, "rpcbench k8s job: want the run's flags and URL after --, e.g. -- --rate 1000 --duration 1m URL\n(see: rpcbench k8s job --help)\n")
		return ExitUsage
	}
	url, err := checkRunArgs(e, runArgs)
	if err != nil {
		return fail(e, "k8s job", err, ExitUsage)
	}
	if o.Name == "" {
		o.Name = defaultJobName(url)
	}
	if len(files) > 0 {
		o.Files = map[string][]byte{}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return fail(e, "k8s job", usagef("--file: %v", err), ExitUsage)
			}
			o.Files[filepath.Base(f)] = b
		}
	}
	o.Args = append([]string{"run"}, runArgs...)
	o.StartAt = time.Now().Add(startIn).UTC()
	cm, job, err := k8s.Manifests(o)
	if err != nil {
		return fail(e, "k8s job", usagef("%s", k8sFlagNames(err)), ExitUsage)
	}
	y, err := k8s.YAML(cm, job)
	if err != nil {
		return fail(e, "k8s job", err, ExitCannotStart)
	}
	write := func(w io.Writer) error { _, err := w.Write(y); return err }
	if out == "" {
		err = write(e.stdout)
	} else {
		err = writeOutput(out, write)
	}
	if err != nil {
		return fail(e, "k8s job", err, ExitCannotStart)
	}
	fmt.Fprintf(e.stderr, "rpcbench k8s job: %d generators start at %s; then: rpcbench report --merge %s/%s-seg-*.rb (from the claim %s)\n",
		o.Parallelism, o.StartAt.Format(time.RFC3339), k8s.ResultsDir, o.Name, o.ResultsClaim)
	return ExitOK
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

// checkRunArgs parses the run flags of a Job's generators as `rpcbench run` would, and checks the
// plan they make; the flags the Job sets itself are refused. It returns the URL, if any.
func checkRunArgs(e *env, args []string) (string, error) {
	var errb strings.Builder
	re := &env{stdout: io.Discard, stderr: &errb, stdin: e.stdin}
	fs := newFlagSet(re, "run", "", "")
	f := &runFlags{format: "text"}
	f.define(fs)
	pos, _, done := parseArgs(re, fs, args)
	if done {
		return "", usagef("after --: %s", strings.TrimSpace(strings.SplitN(errb.String(), "\n", 2)[0]))
	}
	var set []string
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "segment", "segment-index", "segment-sequence", "start-at", "out", "live", "html", "report-file":
			set = append(set, "--"+fl.Name)
		}
	})
	if len(set) > 0 {
		return "", usagef("after --: %s: the Job sets each pod's part, start and result file; leave %s out", strings.Join(set, ", "), strings.Join(set, ", "))
	}
	if len(pos) > 1 || len(pos) == 0 && !f.traffic.given() {
		return "", usagef("after --: want the run's flags and one URL (or --targets, --endpoint), got %d arguments", len(pos))
	}
	p, err := f.plan(strings.Join(pos, ""))
	if err != nil {
		return "", usagef("after --: %v", err)
	}
	if p.Traffic.Targets == "" && p.Traffic.Data == "" && p.Traffic.Setup == "" && p.JSONRPC.CallsFile == "" {
		if err := p.Validate(); err != nil {
			return "", usagef("after --: %s", strings.ReplaceAll(err.Error(), "plan: ", ""))
		}
	}
	return strings.Join(pos, ""), nil
}

// defaultJobName names a Job after its target's host: rpcbench-checkout-shop-svc.
func defaultJobName(url string) string {
	host := url
	if _, rest, ok := strings.Cut(url, "://"); ok {
		host = rest
	}
	host, _, _ = strings.Cut(host, "/")
	host, _, _ = strings.Cut(host, ":")
	name := strings.Trim(k8sNameRE.ReplaceAllString(strings.ToLower(host), "-"), "-")
	if name == "" {
		return "rpcbench"
	}
	return strings.TrimRight(("rpcbench-" + name)[:min(len(name)+9, 52)], "-")
}
