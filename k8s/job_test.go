package k8s

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func testOptions() Options {
	return Options{
		Name: "checkout-1m", Namespace: "load", Image: "registry.example/rpcbench:v1", Parallelism: 8,
		Args:         []string{"run", "--rate", "80000", "--duration", "5m", "http://checkout.shop.svc:8080/"},
		StartAt:      time.Date(2030, 1, 2, 15, 4, 5, 0, time.UTC),
		ResultsClaim: "rpcbench-results",
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("manifests differ from %s (go test ./k8s -update to accept):\n%s", path, got)
	}
}

// The manifests match the golden files, and decode strictly (no unknown field) back into the same
// k8s.io/api objects.
func TestManifestsGoldenRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		opts func(*Options)
	}{
		{"job.yaml", func(*Options) {}},
		{"job-files.yaml", func(o *Options) {
			o.Files = map[string][]byte{"targets.http": []byte("GET http://checkout.shop.svc:8080/cart\n")}
			o.Args = []string{"run", "--rate", "80000", "--duration", "5m", "--targets", PlanDir + "/targets.http"}
			o.CPU, o.Memory, o.Retries = "2", "1Gi", 3
		}},
		// a plan file's scenario, the result files in the pods' logs
		{"job-plan.yaml", func(o *Options) {
			o.Files = map[string][]byte{"checkout.yaml": []byte("targets:\n  shop:\n    url: http://checkout.shop.svc:8080/\nscenarios:\n  cart:\n    path: /cart\n    rate: 80000\n    duration: 5m\n")}
			o.Args = []string{"run", "--plan", PlanDir + "/checkout.yaml", "--scenario", "cart", "--target", "shop"}
			o.ResultsClaim = ""
		}},
	} {
		o := testOptions()
		tt.opts(&o)
		cm, _, job, err := Manifests(o)
		if err != nil {
			t.Fatal(err)
		}
		y, err := YAML(cm, job)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, tt.name, y)
		docs := strings.Split(string(y), "---\n")
		var gotJob batchv1.Job
		if err := yaml.UnmarshalStrict([]byte(docs[len(docs)-1]), &gotJob); err != nil {
			t.Fatalf("%s: the Job does not decode strictly: %v", tt.name, err)
		}
		if !reflect.DeepEqual(&gotJob, job) {
			t.Errorf("%s: the Job decoded differs from the one encoded:\n%+v\n%+v", tt.name, gotJob, *job)
		}
		if cm != nil {
			var gotCM corev1.ConfigMap
			if err := yaml.UnmarshalStrict([]byte(docs[0]), &gotCM); err != nil {
				t.Fatalf("%s: the ConfigMap does not decode strictly: %v", tt.name, err)
			}
			if !reflect.DeepEqual(&gotCM, cm) {
				t.Errorf("%s: the ConfigMap decoded differs from the one encoded", tt.name)
			}
		} else if len(docs) != 1 {
			t.Errorf("%s: %d documents; want the Job alone", tt.name, len(docs))
		}
	}
}

// The Job is Indexed, one pod per generator at once, each pod's completion index choosing its part:
// --segment-index $(INDEX)/N with INDEX from the annotation the Job controller sets.
func TestManifestsIndexToSegment(t *testing.T) {
	t.Parallel()
	_, _, job, err := Manifests(testOptions())
	if err != nil {
		t.Fatal(err)
	}
	s := job.Spec
	if *s.CompletionMode != batchv1.IndexedCompletion || *s.Completions != 8 || *s.Parallelism != 8 {
		t.Errorf("mode %v, completions %d, parallelism %d; want Indexed, 8, 8", *s.CompletionMode, *s.Completions, *s.Parallelism)
	}
	c := s.Template.Spec.Containers[0]
	want := []string{"--segment-index", "$(RPCBENCH_SEGMENT_INDEX)/8", "--start-at", "2030-01-02T15:04:05Z", "--out", "/results/checkout-1m-seg-$(RPCBENCH_SEGMENT_INDEX).rb"}
	i := slices.Index(c.Args, "--segment-index")
	if i < 0 || !slices.Equal(c.Args[i:i+len(want)], want) {
		t.Errorf("args %q; want them to hold %q", c.Args, want)
	}
	if len(c.Env) != 1 || c.Env[0].Name != IndexEnv || c.Env[0].ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("env %+v; want %s from the completion index annotation", c.Env, IndexEnv)
	}
	if got := c.Resources.Limits.Cpu().String(); got != "1" {
		t.Errorf("cpu limit %s; want 1 by default", got)
	}
	if s.Template.Spec.RestartPolicy != "Never" || s.Template.Spec.Affinity.PodAntiAffinity == nil {
		t.Errorf("restart %q, anti-affinity %v; want Never and pods spread over nodes", s.Template.Spec.RestartPolicy, s.Template.Spec.Affinity.PodAntiAffinity)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"a name with capitals", func(o *Options) { o.Name = "Checkout" }, `name "Checkout"`},
		{"a name too long", func(o *Options) { o.Name = strings.Repeat("a", 53) }, "at most 52"},
		{"a bad namespace", func(o *Options) { o.Namespace = "load_test" }, `namespace "load_test"`},
		{"no image", func(o *Options) { o.Image = "" }, "image"},
		{"no generator", func(o *Options) { o.Parallelism = 0 }, "parallelism 0"},
		{"too many", func(o *Options) { o.Parallelism = 1001 }, "parallelism 1001"},
		{"no command", func(o *Options) { o.Args = nil }, "no arguments"},
		{"no start", func(o *Options) { o.StartAt = time.Time{} }, "no start instant"},
		{"a cpu that is no quantity", func(o *Options) { o.CPU = "one" }, `cpu "one"`},
		{"a results claim with capitals", func(o *Options) { o.ResultsClaim = "Results" }, `results claim "Results"`},
		{"files over 1 MiB", func(o *Options) { o.Files = map[string][]byte{"big.csv": make([]byte, 1100<<10)} }, "at most 1 MiB"},
		{"a file name with a slash", func(o *Options) { o.Files = map[string][]byte{"a/b": nil} }, `file "a/b"`},
	} {
		o := testOptions()
		tt.edit(&o)
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate() = %v; want an error with %q", tt.name, err, tt.want)
		}
	}
	if err := testOptions().Validate(); err != nil {
		t.Errorf("valid options: %v", err)
	}
}
