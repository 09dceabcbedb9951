package k8s

import (
	"context"
	"io"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// Apply creates the ConfigMap and the Job through the API; a second run of the same name is
// refused, saying how to clear the first.
func TestApplyTwice(t *testing.T) {
	t.Parallel()
	o := testOptions()
	o.Files = map[string][]byte{"plan.yaml": []byte("targets: {}\n")}
	cm, _, job, err := Manifests(o)
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{Client: fake.NewClientset()}
	if err := c.Apply(context.Background(), cm, nil, job); err != nil {
		t.Fatal(err)
	}
	got, err := c.Client.BatchV1().Jobs("load").Get(context.Background(), "checkout-1m", metav1.GetOptions{})
	if err != nil || *got.Spec.Completions != 8 {
		t.Fatalf("the Job read back: %v, %+v", err, got)
	}
	err = c.Apply(context.Background(), nil, nil, job)
	if err == nil || !strings.Contains(err.Error(), "a Job named checkout-1m is in the namespace load already") {
		t.Errorf("a second Apply: %v; want the Job named as there already", err)
	}
}

// Look counts the pods by phase, and Line names the indexes started again after a failure.
func TestLookAndCollectProblems(t *testing.T) {
	t.Parallel()
	o := testOptions()
	o.Parallelism = 3
	_, _, job, err := Manifests(o)
	if err != nil {
		t.Fatal(err)
	}
	pod := func(name, index string, phase corev1.PodPhase) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "load", Labels: o.Labels(),
			Annotations: map[string]string{CompletionIndexAnnotation: index}}, Status: corev1.PodStatus{Phase: phase}}
	}
	c := &Cluster{Client: fake.NewClientset(job,
		pod("c-0", "0", corev1.PodSucceeded), pod("c-1-a", "1", corev1.PodFailed), pod("c-1-b", "1", corev1.PodRunning),
		pod("c-2-a", "2", corev1.PodFailed), pod("c-2-b", "2", corev1.PodFailed))}
	c.Logs = func(context.Context, string, string) (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader("a log without a result file\n")), nil
	}
	st, err := c.Look(context.Background(), "load", "checkout-1m")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := st.Line(), "pods: 0 pending, 1 running, 1 succeeded, 3 failed (index 1 retried)"; got != want {
		t.Errorf("Line() = %q; want %q", got, want)
	}
	got, err := c.Collect(context.Background(), "load", "checkout-1m")
	if err != nil {
		t.Fatal(err)
	}
	if m := got.Missing(); len(m) != 3 {
		t.Errorf("missing %v; want 0, 1, 2", m)
	}
	want := []string{
		"pod c-0 (index 0): its log holds no result file",
		"pod c-1-a (index 1) failed: exit 0",
		"pod c-1-b (index 1) running",
		"pod c-2-a (index 2) failed",
		"pod c-2-b (index 2) failed",
	}
	if len(got.Problems) != len(want) {
		t.Fatalf("problems %q; want %d", got.Problems, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(got.Problems[i], w) {
			t.Errorf("problem %d %q; want it to start %q", i, got.Problems[i], w)
		}
	}
}

// Apply creates the Secret of a run's secrets before the Job that reads it, and a second run of
// that name is refused naming the Secret. A bad variable name is refused by Manifests.
func TestApplySecret(t *testing.T) {
	t.Parallel()
	o := testOptions()
	o.Args = append(o.Args, "-H", "Authorization: $(RPCBENCH_SECRET_1)")
	o.Secrets = map[string]string{"RPCBENCH_SECRET_1": "Bearer s3cr3t"}
	cm, secret, job, err := Manifests(o)
	if err != nil || cm != nil || secret == nil {
		t.Fatalf("Manifests: ConfigMap %v, Secret %v, %v; want a Secret alone", cm, secret, err)
	}
	c := &Cluster{Client: fake.NewClientset()}
	if err := c.Apply(context.Background(), cm, secret, job); err != nil {
		t.Fatal(err)
	}
	got, err := c.Client.CoreV1().Secrets("load").Get(context.Background(), "checkout-1m", metav1.GetOptions{})
	if err != nil || string(got.Data["RPCBENCH_SECRET_1"]) != "Bearer s3cr3t" {
		t.Fatalf("the Secret read back: %v, %v", err, got)
	}
	err = c.Apply(context.Background(), nil, secret, job)
	if err == nil || !strings.Contains(err.Error(), "a Secret named checkout-1m is in the namespace load already") {
		t.Errorf("a second Apply: %v; want the Secret named as there already", err)
	}
	o.Secrets = map[string]string{"1SECRET": "x", IndexEnv: "y"}
	if _, _, _, err := Manifests(o); err == nil || !strings.Contains(err.Error(), `secret "1SECRET"`) || !strings.Contains(err.Error(), `secret "`+IndexEnv+`"`) {
		t.Errorf("bad variable names: %v; want both refused", err)
	}
}

// When the Job cannot be created, the Secret and the ConfigMap Apply created before it are deleted
// again: no credentials left in the cluster by a run that did not start.
func TestApplyUndoesWhatItCreated(t *testing.T) {
	t.Parallel()
	o := testOptions()
	o.Files = map[string][]byte{"plan.yaml": []byte("targets: {}\n")}
	o.Secrets = map[string]string{"RPCBENCH_SECRET_1": "Bearer s3cr3t"}
	cm, secret, job, err := Manifests(o)
	if err != nil || secret == nil {
		t.Fatalf("Manifests: Secret %v, %v", secret, err)
	}
	if cm == nil { // the files went into the Secret: a ConfigMap of the same name stands in
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: job.Name, Namespace: job.Namespace}}
	}
	c := &Cluster{Client: fake.NewClientset(job.DeepCopy())} // a Job of that name is there already
	err = c.Apply(context.Background(), cm, secret, job)
	if err == nil || !strings.Contains(err.Error(), "a Job named checkout-1m is in the namespace load already") {
		t.Fatalf("Apply beside a Job of the same name: %v; want the Job named as there already", err)
	}
	if _, err := c.Client.CoreV1().Secrets("load").Get(context.Background(), secret.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the Secret after the failed Apply: %v; want it deleted", err)
	}
	if _, err := c.Client.CoreV1().ConfigMaps("load").Get(context.Background(), cm.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the ConfigMap after the failed Apply: %v; want it deleted", err)
	}
}
