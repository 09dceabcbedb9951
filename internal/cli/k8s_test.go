package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"

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
	if code != ExitOK {
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
			if code, _, stderr := mainOut(args...); code != ExitOK {
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
	if code != ExitOK {
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
	runCLICases(t, []string{"k8s", "job"}, []cliCase{
		{"no generators", append([]string{"--parallelism", "0"}, append(ok, "--", "--rate", "10", "http://127.0.0.1:1/")...), ExitUsage, nil, []string{"--parallelism 0"}},
		{"no run flags", append([]string{"--parallelism", "2"}, ok...), ExitUsage, nil, []string{"after --"}},
		{"a bad rate", append([]string{"--parallelism", "2"}, append(ok, "--", "--rate", "fast", "http://127.0.0.1:1/")...), ExitUsage, nil, []string{"--rate", "not a rate"}},
		{"a segment of its own", append([]string{"--parallelism", "2"}, append(ok, "--", "--segment", "1/2", "--rate", "10", "http://127.0.0.1:1/")...), ExitUsage, nil, []string{"the Job sets each pod's part"}},
		{"a bad plan", append([]string{"--parallelism", "2"}, append(ok, "--", "--rate", "10", "ftp://127.0.0.1:1/")...), ExitUsage, nil, []string{`scheme "ftp"`}},
		{"no claim", []string{"--parallelism", "2", "--image", "img", "--", "--rate", "10", "http://127.0.0.1:1/"}, ExitUsage, nil, []string{"--results-claim"}},
		{"a capital name", append([]string{"--parallelism", "2", "--name", "Big"}, append(ok, "--", "--rate", "10", "http://127.0.0.1:1/")...), ExitUsage, nil, []string{`--name "Big"`}},
		{"a file that is not there", append([]string{"--parallelism", "2", "--file", "no-such.http"}, append(ok, "--", "--rate", "10", "http://127.0.0.1:1/")...), ExitUsage, nil, []string{"--file", "no-such.http"}},
	})
}
