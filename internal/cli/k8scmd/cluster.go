package k8scmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/rpcbench/rpcbench/internal/cli"
	"github.com/rpcbench/rpcbench/k8s"
)

// kubeFlags choose the cluster: the kubeconfig file and its context, as kubectl does.
type kubeFlags struct {
	kubeconfig string
	context    string
	namespace  string
}

func (f *kubeFlags) define(fs *flag.FlagSet, withNamespace bool) {
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "the kubeconfig `FILE` (default: $KUBECONFIG, else ~/.kube/config)")
	fs.StringVar(&f.context, "context", "", "the kubeconfig `CONTEXT` (default: its current context)")
	if withNamespace {
		fs.StringVar(&f.namespace, "namespace", "", "the `NAMESPACE` of the Job (default: the context's)")
	}
}

// kubeClient returns a client of the cluster f names and the namespace to use (f.namespace, else
// the context's).
func kubeClient(f kubeFlags) (kubernetes.Interface, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = f.kubeconfig
	over := &clientcmd.ConfigOverrides{CurrentContext: f.context}
	over.Context.Namespace = f.namespace
	cfg := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, over)
	rc, err := cfg.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("no cluster to talk to: %w", err)
	}
	ns, _, err := cfg.Namespace()
	if err != nil {
		return nil, "", err
	}
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, "", err
	}
	return cs, ns, nil
}

// clusterFunc gives the cluster the kube flags choose and the namespace to use: kubeCluster, or a
// fake cluster in tests.
type clusterFunc func(kubeFlags) (*k8s.Cluster, string, error)

// kubeCluster returns the cluster of f's kubeconfig.
func kubeCluster(f kubeFlags) (*k8s.Cluster, string, error) {
	cs, ns, err := kubeClient(f)
	if err != nil {
		return nil, "", err
	}
	return &k8s.Cluster{Client: cs}, ns, nil
}

const k8sCollectExamples = `  rpcbench k8s collect --namespace load --job rpcbench-cart-shop     (needs a cluster) fetch, merge, report
  rpcbench k8s collect --job rpcbench-cart-shop --out-dir cart --format markdown`

func runK8sCollect(ctx context.Context, e *cli.Env, cluster clusterFunc, args []string) int {
	fs := cli.NewFlagSet(e, "k8s collect", "k8s collect [flags] --job NAME\n\nFetch the result file each pod of a Job printed into its log (a Job of rpcbench k8s job without\n--results-claim), write them into --out-dir as NAME-seg-I.rb, merge them and print the report. A\npod that failed and was retried to success is noted; an index with no result file is named, and\nthe exit code is then 4.", k8sCollectExamples)
	var kf kubeFlags
	kf.define(fs, true)
	var job, dir, format string
	fs.StringVar(&job, "job", "", "the `NAME` of the Job")
	fs.StringVar(&dir, "out-dir", "", "the `DIRECTORY` the result files go to (default: NAME-DATE-TIME)")
	cli.DefineReportFormat(fs, &format)
	if code, done := cli.ParseFlags(e, fs, args); done {
		return code
	}
	if job == "" {
		return cli.Fail(e, "k8s collect", cli.Usagef("--job: want the name of the Job, e.g. --job rpcbench-cart-shop"), cli.ExitUsage)
	}
	if err := cli.MakeRunDir(orDefault(&dir, job)); err != nil {
		return cli.Fail(e, "k8s collect", err, cli.ExitUsage)
	}
	c, ns, err := cluster(kf)
	if err != nil {
		return cli.Fail(e, "k8s collect", err, cli.ExitCannotStart)
	}
	return collect(ctx, e, "k8s collect", c, ns, job, dir, format)
}

// orDefault sets *dir to NAME-DATE-TIME when empty, and returns it.
func orDefault(dir *string, name string) string {
	if *dir == "" {
		*dir = name + "-" + time.Now().Format("20060102-150405")
	}
	return *dir
}

// collect fetches the Job's result files into dir, says what became of its pods, and renders the
// merged run; an index without a result file makes the exit code 4 after the report.
func collect(ctx context.Context, e *cli.Env, cmd string, c *k8s.Cluster, ns, job, dir, format string) int {
	got, err := c.Collect(ctx, ns, job)
	if err != nil {
		return cli.Fail(e, cmd, err, cli.ExitCannotStart)
	}
	if r := got.Status.Retried(); len(r) > 0 {
		for _, p := range got.Status.Pods {
			if p.Phase == "Failed" && got.Files[p.Index] != nil {
				fmt.Fprintf(e.Stderr(), "rpcbench %s: %s; the Job started index %d again, which succeeded\n", cmd, p, p.Index)
			}
		}
	}
	for _, p := range got.Problems {
		fmt.Fprintf(e.Stderr(), "rpcbench %s: %s\n", cmd, p)
	}
	var files []string
	for i := range got.Completions {
		data, ok := got.Files[i]
		if !ok {
			continue
		}
		path := filepath.Join(dir, job+"-seg-"+strconv.Itoa(i)+".rb")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return cli.Fail(e, cmd, err, cli.ExitCannotStart)
		}
		files = append(files, path)
	}
	missing := got.Missing()
	if len(files) == 0 {
		return cli.Fail(e, cmd, fmt.Errorf("no pod of the Job %s/%s left a result file", ns, job), cli.ExitCannotStart)
	}
	fmt.Fprintf(e.Stderr(), "rpcbench %s: %d result files in %s\n", cmd, len(files), dir)
	code := cli.Report(ctx, e, append([]string{"--merge", "--format", format}, files...))
	if len(missing) > 0 {
		idx := make([]string, len(missing))
		for i, m := range missing {
			idx[i] = strconv.Itoa(m)
		}
		fmt.Fprintf(e.Stderr(), "rpcbench %s: no result file from index %s of %d: the report covers part of the run\n", cmd, strings.Join(idx, ", "), got.Completions)
		return cli.ExitCannotStart
	}
	return code
}

const k8sRunExamples = `  rpcbench k8s run --parallelism 8 --image registry.example/rpcbench:v1 --namespace load --scenario cart --target shop plan.yaml   (needs a cluster)
  rpcbench k8s run --parallelism 4 --image IMAGE -- --rate 4000 --duration 1m http://checkout.shop.svc:8080/   (needs a cluster)`

func runK8sRun(ctx context.Context, e *cli.Env, cluster clusterFunc, args []string) int {
	fs := cli.NewFlagSet(e, "k8s run", "k8s run [flags] PLAN.yaml\n   or: rpcbench k8s run [flags] -- RUN-FLAGS… [URL]\n\nRun as rpcbench k8s job would write it: create the ConfigMap, the Secret and the Indexed Job through the\nKubernetes API, wait for the pods with a progress line (a pod that fails is started again by the\nJob; each is reported), then fetch the result files from the pods' logs, merge them and print the\nreport, as rpcbench k8s collect does. Ctrl-C stops the waiting and collects what is there; the Job,\nits ConfigMap and its Secret stay (kubectl delete job,configmap,secret NAME).", k8sRunExamples)
	var j k8sJobFlags
	j.define(fs)
	var kf kubeFlags
	kf.define(fs, false)
	var dir, format string
	fs.StringVar(&dir, "out-dir", "", "the `DIRECTORY` the result files go to (default: NAME-DATE-TIME)")
	cli.DefineReportFormat(fs, &format)
	own, runArgs, split := splitAtDashes(args)
	pos, code, done := cli.ParseArgs(e, fs, own)
	if done {
		return code
	}
	if j.o.ResultsClaim != "" {
		return cli.Fail(e, "k8s run", cli.Usagef("--results-claim: k8s run collects the result files from the pods' logs; with a claim, use k8s job and rpcbench report --merge"), cli.ExitUsage)
	}
	o, err := j.options(e, pos, runArgs, split)
	if err != nil {
		return cli.Fail(e, "k8s run", err, cli.ExitUsage)
	}
	kf.namespace = o.Namespace
	if _, _, _, err := k8s.Manifests(o); err != nil {
		return cli.Fail(e, "k8s run", cli.Usagef("%s", k8sFlagNames(err)), cli.ExitUsage)
	}
	if err := cli.MakeRunDir(orDefault(&dir, o.Name)); err != nil {
		return cli.Fail(e, "k8s run", err, cli.ExitUsage)
	}
	c, ns, err := cluster(kf)
	if err != nil {
		return cli.Fail(e, "k8s run", err, cli.ExitCannotStart)
	}
	o.Namespace = ns
	o.StartAt = time.Now().Add(j.startIn).UTC() // from when the Job is made
	cm, secret, job, err := k8s.Manifests(o)
	if err != nil {
		return cli.Fail(e, "k8s run", cli.Usagef("%s", k8sFlagNames(err)), cli.ExitUsage)
	}
	if err := c.Apply(ctx, cm, secret, job); err != nil {
		return cli.Fail(e, "k8s run", err, cli.ExitCannotStart)
	}
	if note := secretNote(o); note != "" {
		fmt.Fprintf(e.Stderr(), "rpcbench k8s run: %s\n", note)
	}
	fmt.Fprintf(e.Stderr(), "rpcbench k8s run: Job %s/%s: %d generators start at %s\n", ns, o.Name, o.Parallelism, o.StartAt.Format(time.RFC3339))
	told := map[string]bool{}
	st, err := c.Wait(ctx, ns, o.Name, func(st k8s.Status) {
		fmt.Fprintf(e.Stderr(), "rpcbench k8s run: %s\n", st.Line())
		for _, p := range st.Pods {
			if p.Phase == "Failed" && !told[p.Name] {
				told[p.Name] = true
				fmt.Fprintf(e.Stderr(), "rpcbench k8s run: %s; the Job starts index %d again unless its retries (--retries %d) are spent or it exited 2\n", p, p.Index, o.Retries)
			}
		}
	})
	switch {
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(e.Stderr(), "rpcbench k8s run: interrupted; collecting what the pods left (the Job, its ConfigMap and its Secret stay: kubectl delete -n %s job,configmap,secret %s)\n", ns, o.Name)
	case err != nil:
		return cli.Fail(e, "k8s run", err, cli.ExitCannotStart)
	case st.JobFailure != "":
		fmt.Fprintf(e.Stderr(), "rpcbench k8s run: the Job failed: %s\n", st.JobFailure)
	}
	code = collect(context.WithoutCancel(ctx), e, "k8s run", c, ns, o.Name, dir, format)
	if err != nil && code == cli.ExitOK {
		return cli.ExitInterrupted
	}
	return code
}
