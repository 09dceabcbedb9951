package k8scmd

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/rpcbench/rpcbench/internal/cli"
	"github.com/rpcbench/rpcbench/k8s"
	"github.com/rpcbench/rpcbench/serve/lab"
)

// The Job's pods, each run with the completion index Kubernetes would give it, are the segments of
// one run: their merged counts are the plan's. The pods' arguments are taken from the manifest as
// printed, with $(RPCBENCH_SEGMENT_INDEX) expanded as Kubernetes expands it.
func TestK8sJobPodsAreTheSegments(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{})
	code, stdout, stderr := mainOut("k8s", "job", "--parallelism", "4", "--image", "registry.example/rpcbench:v1", "--results-claim", "results",
		"--start-in", "1500ms", "--", "--rate", "400", "--requests", "60", srv.URL())
	if code != cli.ExitOK {
		t.Fatalf("k8s job: exit %d\n%s", code, stderr)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(stdout), &job); err != nil {
		t.Fatalf("the printed Job does not decode strictly: %v\n%s", err, stdout)
	}
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := range int(*job.Spec.Completions) {
		args := slices.Clone(job.Spec.Template.Spec.Containers[0].Args)
		for k, a := range args {
			a = strings.ReplaceAll(a, "$("+k8s.IndexEnv+")", fmt.Sprint(i))
			args[k] = strings.Replace(a, k8s.ResultsDir+"/", dir+"/", 1)
		}
		wg.Go(func() {
			if code, _, stderr := mainOut(args...); code != cli.ExitOK {
				t.Errorf("pod %d: %q: exit %d\n%s", i, args, code, stderr)
			}
		})
	}
	wg.Wait()
	files, _ := filepath.Glob(filepath.Join(dir, "*-seg-*.rb"))
	if len(files) != 4 {
		t.Fatalf("%d result files; want one per pod, 4", len(files))
	}
	code, out, stderr := mainOut(append([]string{"report", "--merge"}, files...)...)
	if code != cli.ExitOK {
		t.Fatalf("report --merge: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"intended 60, sent 60, completed 60", "Generators: 4 merged", "segment 0:1/4", "segment 3/4:1", "4 generators ran every segment"} {
		if !strings.Contains(out, want) {
			t.Errorf("merged report lacks %q:\n%s", want, out)
		}
	}
}

func TestK8sJobBadInput(t *testing.T) {
	t.Parallel()
	ok := []string{"--image", "img", "--results-claim", "r"}
	runUsageCases(t, []string{"k8s", "job"}, []usageCase{
		{"no generators", append([]string{"--parallelism", "0"}, append(ok, "--", "--rate", "10", "http://127.0.0.1:1/")...), []string{"--parallelism 0"}},
		{"no run flags", append([]string{"--parallelism", "2"}, ok...), []string{"after --"}},
		{"a bad rate", append([]string{"--parallelism", "2"}, append(ok, "--", "--rate", "fast", "http://127.0.0.1:1/")...), []string{"--rate", "not a rate"}},
		{"a segment of its own", append([]string{"--parallelism", "2"}, append(ok, "--", "--segment", "1/2", "--rate", "10", "http://127.0.0.1:1/")...), []string{"the Job sets each pod's part"}},
		{"a bad plan", append([]string{"--parallelism", "2"}, append(ok, "--", "--rate", "10", "ftp://127.0.0.1:1/")...), []string{`scheme "ftp"`}},
		{"a bad claim", []string{"--parallelism", "2", "--image", "img", "--results-claim", "Big", "--", "--rate", "10", "http://127.0.0.1:1/"}, []string{`--results-claim "Big"`}},
		{"a plan file after --", append([]string{"--parallelism", "2"}, append(ok, "--", "--plan", "p.yaml")...), []string{"give the plan file as the argument of k8s job"}},
		{"a plan file and run flags", append([]string{"--parallelism", "2"}, append(ok, "p.yaml", "--", "--rate", "10", "http://127.0.0.1:1/")...), []string{"want a plan file (PLAN.yaml), or the run's flags"}},
		{"a scenario without a plan file", append([]string{"--parallelism", "2", "--scenario", "a"}, append(ok, "--", "--rate", "10", "http://127.0.0.1:1/")...), []string{"choose a run of a plan file"}},
		{"a capital name", append([]string{"--parallelism", "2", "--name", "Big"}, append(ok, "--", "--rate", "10", "http://127.0.0.1:1/")...), []string{`--name "Big"`}},
		{"a file that is not there", append([]string{"--parallelism", "2", "--file", "no-such.http"}, append(ok, "--", "--rate", "10", "http://127.0.0.1:1/")...), []string{"--file", "no-such.http"}},
	})
}

// A plan file's scenario runs as a Job: the ConfigMap holds the plan file and the files its
// scenario reads, and the pods run that scenario against that target with run --plan; a plan with
// several scenarios or targets needs --scenario and --target.
func TestK8sJobPlanFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "shop.yaml") // beside it: cart.http, GET /cart
	shop := readFile(t, path)
	code, stdout, stderr := mainOut("k8s", "job", "--parallelism", "3", "--image", "img", "--namespace", "load", "--scenario", "levels", "--target", "green", "--step", "2", path)
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	docs := strings.Split(stdout, "---\n")
	var cm corev1.ConfigMap
	var job batchv1.Job
	if len(docs) != 2 || yaml.UnmarshalStrict([]byte(docs[0]), &cm) != nil || yaml.UnmarshalStrict([]byte(docs[1]), &job) != nil {
		t.Fatalf("want a ConfigMap and a Job that decode strictly:\n%s", stdout)
	}
	if job.Name != "rpcbench-levels-green" || job.Namespace != "load" || cm.Name != job.Name {
		t.Errorf("Job %s/%s, ConfigMap %s; want load/rpcbench-levels-green for both", job.Namespace, job.Name, cm.Name)
	}
	if len(cm.Data) != 1 || cm.Data["shop.yaml"] != shop {
		t.Errorf("ConfigMap data %v; want the plan file alone (levels reads no file)", cm.Data)
	}
	args := job.Spec.Template.Spec.Containers[0].Args
	want := []string{"run", "--plan", "/etc/rpcbench/shop.yaml", "--scenario", "levels", "--target", "green", "--step", "2", "--segment-index", "$(RPCBENCH_SEGMENT_INDEX)/3"}
	if !slices.Equal(args[:len(want)], want) || !slices.Contains(args, "--out-log") || !slices.Contains(args, "--no-verdict") {
		t.Errorf("args %q; want them to start with %q and hold --out-log and --no-verdict", args, want)
	}
	if !strings.Contains(stderr, "then: rpcbench k8s collect --job rpcbench-levels-green --namespace load") {
		t.Errorf("stderr does not say how to collect:\n%s", stderr)
	}

	code, stdout, stderr = mainOut("k8s", "job", "--parallelism", "2", "--image", "img", "--scenario", "cart", "--target", "blue", path)
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if err := yaml.UnmarshalStrict([]byte(strings.Split(stdout, "---\n")[0]), &cm); err != nil || cm.Data["cart.http"] != "GET /cart\n" {
		t.Errorf("the ConfigMap lacks the scenario's target file cart.http (%v): %v", err, cm.Data)
	}
}

func TestK8sJobPlanFileBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string { return writeFile(t, dir, name, text) }
	two := write("two.yaml", strings.Replace(readFile(t, filepath.Join("testdata", "shop.yaml")), "cart.http", "missing.http", 1))
	broken := write("broken.yaml", "targets:\n  a:\n    url: http://a/\nscenarios:\n  r:\n    rate: 10\n    duration: soon\n")
	started := write("started.yaml", "targets:\n  a:\n    url: http://127.0.0.1:18080/\n    command: rpcbench serve lab --addr 127.0.0.1:18080\nscenarios:\n  r:\n    rate: 10\n")
	replayed := write("replayed.yaml", "targets:\n  a:\n    url: http://a/\nscenarios:\n  r:\n    replay: {files: [access.log]}\n")
	nested := write("nested.yaml", "targets:\n  a:\n    url: http://a/\nscenarios:\n  r:\n    rate: 10\n    data: data/users.csv\n")
	ok := []string{"--parallelism", "2", "--image", "img"}
	runUsageCases(t, []string{"k8s", "job"}, []usageCase{
		{"a plan that does not parse", append(ok, broken), []string{"broken.yaml:7:15: scenarios.r.duration"}},
		{"several scenarios", append(ok, two), []string{"--scenario: ", "has 2 scenarios: say which, one of cart, levels"}},
		{"several targets", append(ok, "--scenario", "levels", two), []string{"--target: ", "one of blue, green"}},
		{"steps", append(ok, "--scenario", "levels", "--target", "blue", two), []string{"--step: scenario levels has 2 steps (10 connections, 20 connections)"}},
		{"a step too far", append(ok, "--scenario", "levels", "--target", "blue", "--step", "3", two), []string{"--step: 3: scenario levels has steps 1 to 2"}},
		{"an unknown scenario", append(ok, "--scenario", "nope", "--target", "blue", two), []string{`--scenario: "nope" is not in`}},
		{"a file the scenario reads is missing", append(ok, "--scenario", "cart", "--target", "blue", two), []string{"missing.http"}},
		{"a target started by a command", append(ok, started), []string{"target a has a command: a Job's pods do not start targets"}},
		{"a replay", append(ok, replayed), []string{"replayed.yaml: scenario r is a replay, which one generator sends whole"}},
		{"a file in a directory", append(ok, nested), []string{"reads data/users.csv", "named without a directory"}},
		{"two plan files", append(ok, broken, two), []string{"want a plan file (PLAN.yaml)"}},
	})
}

// A link beside the plan file to a file outside its directory is refused, as ../ and absolute
// names are: it would put that file into the ConfigMap. The error names the link and prints none
// of the file. A link to a file beside the plan file is taken.
func TestK8sJobPlanFileLinks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "plan")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := writeFile(t, root, "secret.http", "GET http://127.0.0.1:1/\nAuthorization: Bearer 0utsideSecret\n")
	planFile := writeFile(t, dir, "shop.yaml", "targets:\n  a:\n    url: http://127.0.0.1:1/\nscenarios:\n  cart:\n    targets_file: cart.http\n    rate: 10\n    duration: 1s\n")
	link := filepath.Join(dir, "cart.http")
	for _, to := range []string{filepath.Join("..", "secret.http"), outside} {
		os.Remove(link)
		if err := os.Symlink(to, link); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := mainOut("k8s", "job", "--parallelism", "2", "--image", "img", planFile)
		if code != cli.ExitUsage || stdout != "" {
			t.Errorf("a link to %s: exit %d; want %d and no manifest:\n%s", to, code, cli.ExitUsage, stdout)
		}
		if !strings.Contains(stderr, "reads cart.http, a link to a file outside the plan file's directory") || strings.Contains(stderr, "0utsideSecret") {
			t.Errorf("a link to %s: stderr %q; want the link named as leaving the directory, and none of the file", to, stderr)
		}
	}
	writeFile(t, dir, "real.http", "GET http://127.0.0.1:1/cart\n")
	os.Remove(link)
	if err := os.Symlink("real.http", link); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := mainOut("k8s", "job", "--parallelism", "2", "--image", "img", planFile)
	var cm corev1.ConfigMap
	if code != cli.ExitOK || yaml.UnmarshalStrict([]byte(strings.Split(stdout, "---\n")[0]), &cm) != nil || cm.Data["cart.http"] != "GET http://127.0.0.1:1/cart\n" {
		t.Errorf("a link to a file beside the plan: exit %d; want the file in the ConfigMap as cart.http, got %v\n%s", code, cm.Data, stderr)
	}
}

// The secrets of a Job's run (a secret header's value, a URL's user-info, a key-like query value)
// go into a Secret: the Job's arguments name them as $(RPCBENCH_SECRET_K), which Kubernetes
// expands from the container's environment, read from the Secret (secretKeyRef). The Job holds
// none of them, and its arguments, expanded as Kubernetes expands them, are the run's flags.
func TestK8sJobSecretsInASecret(t *testing.T) {
	t.Parallel()
	secrets := []string{"s3cr3tBearer", "t0kenValue", "pw0rdSecret", "k3yValue"}
	url := "http://alice:pw0rdSecret@127.0.0.1:1/a?api_key=k3yValue&page=1"
	runArgs := []string{"--rate", "10", "--duration", "1s", "-H", "Authorization: Bearer s3cr3tBearer", "-H=X-Api-Token: t0kenValue", url}
	code, stdout, stderr := mainOut(append([]string{"k8s", "job", "--parallelism", "2", "--image", "img", "--"}, runArgs...)...)
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	docs := strings.Split(stdout, "---\n")
	var secret corev1.Secret
	var job batchv1.Job
	if len(docs) != 2 || yaml.UnmarshalStrict([]byte(docs[0]), &secret) != nil || yaml.UnmarshalStrict([]byte(docs[1]), &job) != nil || secret.Kind != "Secret" {
		t.Fatalf("want a Secret and a Job that decode strictly:\n%s", stdout)
	}
	for _, s := range secrets {
		if strings.Contains(docs[1], s) || strings.Contains(stderr, s) {
			t.Errorf("the Job or stderr holds %q:\n%s\n%s", s, docs[1], stderr)
		}
	}
	if strings.Contains(job.Name, "alice") || secret.Name != job.Name {
		t.Errorf("Job %s, Secret %s; want one name, without the URL's user", job.Name, secret.Name)
	}
	c := job.Spec.Template.Spec.Containers[0]
	fromSecret := map[string]string{}
	for _, ev := range c.Env {
		if ref := ev.ValueFrom.SecretKeyRef; ref != nil && ref.Name == secret.Name {
			fromSecret[ev.Name] = string(secret.Data[ref.Key])
		}
	}
	if len(fromSecret) != 4 {
		t.Errorf("environment from the Secret %v; want 4 variables: the header values, the user-info and the key", fromSecret)
	}
	var expanded []string
	for _, a := range c.Args[1 : 1+len(runArgs)] {
		for name, v := range fromSecret {
			a = strings.ReplaceAll(a, "$("+name+")", v)
		}
		expanded = append(expanded, a)
	}
	if c.Args[0] != "run" || !slices.Equal(expanded, runArgs) {
		t.Errorf("the pods' arguments, expanded from the Secret:\n%q\nwant the run's flags:\n%q", expanded, runArgs)
	}
	if !strings.Contains(stderr, "the 4 secrets of the run's flags are in the Secret "+job.Name) {
		t.Errorf("stderr does not say where the secrets are:\n%s", stderr)
	}

	// a plan file that sends secrets: its files go into the Secret, mounted where the ConfigMap was
	dir := t.TempDir()
	planFile := writeFile(t, dir, "shop.yaml", "targets:\n  a:\n    url: http://alice:pw0rdSecret@127.0.0.1:1/\nscenarios:\n  cart:\n    targets_file: cart.http\n    rate: 10\n    duration: 1s\n")
	writeFile(t, dir, "cart.http", "GET /cart?api_key=k3yValue\nAuthorization: Bearer s3cr3tBearer\n")
	code, stdout, stderr = mainOut("k8s", "job", "--parallelism", "2", "--image", "img", planFile)
	if code != cli.ExitOK {
		t.Fatalf("a plan file: exit %d\n%s", code, stderr)
	}
	docs = strings.Split(stdout, "---\n")
	secret, job = corev1.Secret{}, batchv1.Job{}
	if len(docs) != 2 || yaml.UnmarshalStrict([]byte(docs[0]), &secret) != nil || yaml.UnmarshalStrict([]byte(docs[1]), &job) != nil || secret.Kind != "Secret" {
		t.Fatalf("a plan file that sends secrets: want a Secret and a Job, no ConfigMap:\n%s", stdout)
	}
	if string(secret.Data["shop.yaml"]) != readFile(t, planFile) || len(secret.Data) != 2 {
		t.Errorf("the Secret holds %d files; want the plan file and cart.http", len(secret.Data))
	}
	vol := job.Spec.Template.Spec.Volumes
	if len(vol) != 1 || vol[0].Secret == nil || vol[0].Secret.SecretName != job.Name || job.Spec.Template.Spec.Containers[0].VolumeMounts[0].MountPath != k8s.PlanDir {
		t.Errorf("volumes %+v; want the Secret %s mounted at %s", vol, job.Name, k8s.PlanDir)
	}
	for _, s := range secrets {
		if strings.Contains(docs[1], s) {
			t.Errorf("the Job holds %q", s)
		}
	}
	if !strings.Contains(stderr, "the run's files hold secrets: they are in the Secret "+job.Name+", mounted at /etc/rpcbench, not in a ConfigMap") {
		t.Errorf("stderr does not say where the files are:\n%s", stderr)
	}

	// a --file that holds a secret header goes into the Secret too, beside the flags' secrets; the
	// pods' volume holds the files alone
	targets := writeFile(t, dir, "targets.http", "GET http://127.0.0.1:1/\nAuthorization: Bearer s3cr3tBearer\n")
	code, stdout, stderr = mainOut("k8s", "job", "--parallelism", "2", "--image", "img", "--file", targets, "--", "--rate", "10", "-H", "X-Api-Token: t0kenValue", "--targets", k8s.PlanDir+"/targets.http")
	docs = strings.Split(stdout, "---\n")
	secret, job = corev1.Secret{}, batchv1.Job{}
	if code != cli.ExitOK || len(docs) != 2 || yaml.UnmarshalStrict([]byte(docs[0]), &secret) != nil || yaml.UnmarshalStrict([]byte(docs[1]), &job) != nil ||
		secret.Kind != "Secret" || strings.Contains(docs[1], "s3cr3tBearer") || strings.Contains(docs[1], "t0kenValue") {
		t.Fatalf("--file with a secret header: exit %d; want a Secret of it and a Job without it:\n%s%s", code, stdout, stderr)
	}
	if len(secret.Data) != 2 || string(secret.Data["RPCBENCH_SECRET_1"]) != "t0kenValue" {
		t.Errorf("the Secret's keys %v; want targets.http and RPCBENCH_SECRET_1", slices.Sorted(maps.Keys(secret.Data)))
	}
	if vol := job.Spec.Template.Spec.Volumes; len(vol) != 1 || vol[0].Secret == nil || len(vol[0].Secret.Items) != 1 || vol[0].Secret.Items[0].Key != "targets.http" {
		t.Errorf("volumes %+v; want the Secret's file targets.http alone in %s", vol, k8s.PlanDir)
	}
}

// A step of a swept scenario (each value a step, beyond the scenario's own steps) runs as a Job
// whose pods pick that step with run --plan --step.
func TestK8sJobSweptStep(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sweep.yaml")
	plan := "targets:\n  node: {url: http://127.0.0.1:18545/}\nscenarios:\n  batch:\n    steps: [5, 10]\n    step: 10s\n    sweep: {batch: [1, 10]}\n    jsonrpc: {calls: [{method: eth_blockNumber}]}\n"
	if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := mainOut("k8s", "job", "--parallelism", "2", "--image", "img", "--step", "4", path)
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var job batchv1.Job
	docs := strings.Split(stdout, "---\n")
	if len(docs) != 2 || yaml.UnmarshalStrict([]byte(docs[1]), &job) != nil {
		t.Fatalf("want a ConfigMap and a Job:\n%s", stdout)
	}
	args := job.Spec.Template.Spec.Containers[0].Args
	want := []string{"run", "--plan", "/etc/rpcbench/sweep.yaml", "--scenario", "batch", "--target", "node", "--step", "4"}
	if !slices.Equal(args[:len(want)], want) {
		t.Errorf("args %q; want them to start with %q (step 4: batch 10 at 10 connections)", args, want)
	}
}
