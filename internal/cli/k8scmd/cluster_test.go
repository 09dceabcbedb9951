package k8scmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/rpcbench/rpcbench/internal/cli"
	"github.com/rpcbench/rpcbench/k8s"
	"github.com/rpcbench/rpcbench/serve/lab"
)

var (
	podsGVR = corev1.SchemeGroupVersion.WithResource("pods")
	jobsGVR = batchv1.SchemeGroupVersion.WithResource("jobs")
	cmsGVR  = corev1.SchemeGroupVersion.WithResource("configmaps")
)

// jobSim plays the Job controller and the kubelet on a fake clientset, one step each time the
// pods are listed (every look of Cluster.Wait): it creates a pod per completion index, runs them,
// fails the first pod of index failIndex before the start instant (as an eviction would) and
// starts that index again, runs every other pod for real — rpcbench run with the pod's arguments,
// against the test's loopback target, the ConfigMap's files in a directory — keeps each run's
// stdout as the pod's log, and marks the Job complete.
type jobSim struct {
	t         *testing.T
	cs        *fake.Clientset
	ns        string
	failIndex int
	steps     int
	dir       string // the ConfigMap's files
	mu        sync.Mutex
	logs      map[string]string
}

func (s *jobSim) job() *batchv1.Job {
	obj, err := s.cs.Tracker().List(jobsGVR, batchv1.SchemeGroupVersion.WithKind("Job"), s.ns)
	if err != nil || len(obj.(*batchv1.JobList).Items) != 1 {
		s.t.Fatalf("want one Job in %s: %v", s.ns, err)
	}
	return &obj.(*batchv1.JobList).Items[0]
}

func (s *jobSim) pods() []*corev1.Pod {
	obj, err := s.cs.Tracker().List(podsGVR, corev1.SchemeGroupVersion.WithKind("Pod"), s.ns)
	if err != nil {
		s.t.Fatal(err)
	}
	var out []*corev1.Pod
	for i := range obj.(*corev1.PodList).Items {
		out = append(out, &obj.(*corev1.PodList).Items[i])
	}
	return out
}

func (s *jobSim) newPod(job *batchv1.Job, index int, name string) {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: s.ns, Labels: job.Spec.Template.Labels,
			Annotations: map[string]string{k8s.CompletionIndexAnnotation: fmt.Sprint(index)}},
		Spec:   job.Spec.Template.Spec,
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
	if err := s.cs.Tracker().Create(podsGVR, p, s.ns); err != nil {
		s.t.Fatal(err)
	}
}

func (s *jobSim) set(p *corev1.Pod, phase corev1.PodPhase, exit int32, reason string) {
	p.Status.Phase = phase
	if phase == corev1.PodSucceeded || phase == corev1.PodFailed {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "rpcbench", State: corev1.ContainerState{
			Terminated: &corev1.ContainerStateTerminated{ExitCode: exit, Reason: reason}}}}
	}
	if err := s.cs.Tracker().Update(podsGVR, p, s.ns); err != nil {
		s.t.Fatal(err)
	}
}

// step advances the cluster by one step; it never answers the list itself.
func (s *jobSim) step(k8stesting.Action) (bool, runtime.Object, error) {
	job := s.job()
	s.steps++
	switch s.steps {
	case 1: // the controller creates the pods, and the ConfigMap is mounted
		obj, err := s.cs.Tracker().Get(cmsGVR, s.ns, job.Name)
		if err != nil {
			s.t.Fatalf("no ConfigMap %s: %v", job.Name, err)
		}
		for name, data := range obj.(*corev1.ConfigMap).Data {
			if err := os.WriteFile(filepath.Join(s.dir, name), []byte(data), 0o644); err != nil {
				s.t.Fatal(err)
			}
		}
		for i := range int(*job.Spec.Completions) {
			s.newPod(job, i, fmt.Sprintf("%s-%d-a", job.Name, i))
		}
	case 2: // scheduled; one is evicted before the start and started again
		for _, p := range s.pods() {
			if p.Annotations[k8s.CompletionIndexAnnotation] == fmt.Sprint(s.failIndex) {
				s.set(p, corev1.PodFailed, 137, "OOMKilled")
				continue
			}
			s.set(p, corev1.PodRunning, 0, "")
		}
		s.newPod(job, s.failIndex, fmt.Sprintf("%s-%d-b", job.Name, s.failIndex))
	case 3: // every pod that did not fail runs its segment
		var wg sync.WaitGroup
		for _, p := range s.pods() {
			if p.Status.Phase == corev1.PodFailed {
				continue
			}
			args := slices.Clone(p.Spec.Containers[0].Args)
			for k, a := range args {
				a = strings.ReplaceAll(a, "$("+k8s.IndexEnv+")", p.Annotations[k8s.CompletionIndexAnnotation])
				args[k] = strings.Replace(a, k8s.PlanDir+"/", s.dir+"/", 1)
			}
			wg.Go(func() {
				code, stdout, stderr := mainOut(args...)
				if code != cli.ExitOK {
					s.t.Errorf("pod %s: %q: exit %d\n%s", p.Name, args, code, stderr)
				}
				s.mu.Lock()
				s.logs[p.Name] = stdout + stderr
				s.mu.Unlock()
			})
		}
		wg.Wait()
		for _, p := range s.pods() {
			if p.Status.Phase != corev1.PodFailed {
				s.set(p, corev1.PodSucceeded, 0, "Completed")
			}
		}
	case 4:
		job.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
		if err := s.cs.Tracker().Update(jobsGVR, job, s.ns); err != nil {
			s.t.Fatal(err)
		}
	}
	return false, nil, nil
}

func (s *jobSim) log(_ context.Context, ns, pod string) (io.ReadCloser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.logs[pod]
	if !ok {
		return nil, fmt.Errorf("pods %q not found", pod)
	}
	return io.NopCloser(strings.NewReader(l)), nil
}

// k8s run on a fake cluster: the ConfigMap and the Indexed Job are created through the API, the
// progress line follows the pods, a pod that fails is reported and its index started again, and
// the result files the pods' real runs framed into their logs are collected and merged: together
// they are the plan's 60 requests.
func TestK8sRunFakeCluster(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{})
	path := writeFile(t, t.TempDir(), "lab.yaml", "targets:\n  lab:\n    url: "+srv.URL()+"\nscenarios:\n  read:\n    path: /v0/entity?id=1\n    rate: 400\n    requests: 60\n")
	cs := fake.NewClientset()
	sim := &jobSim{t: t, cs: cs, ns: "load", failIndex: 1, dir: t.TempDir(), logs: map[string]string{}}
	cs.PrependReactor("list", "pods", sim.step)
	cluster := func(kf kubeFlags) (*k8s.Cluster, string, error) {
		if kf.namespace != "load" {
			t.Errorf("namespace %q; want load from --namespace", kf.namespace)
		}
		return &k8s.Cluster{Client: cs, Logs: sim.log, Every: time.Millisecond}, "load", nil
	}
	out := filepath.Join(t.TempDir(), "results")
	code, stdout, stderr := mainOn(cluster, "k8s", "run", "--parallelism", "3", "--image", "img", "--namespace", "load", "--start-in", "1500ms", "--out-dir", out, path)
	if code != cli.ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"intended 60, sent 60, completed 60", "Generators: 3 merged", "3 generators ran every segment"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the merged report lacks %q:\n%s", want, stdout)
		}
	}
	for _, want := range []string{
		"Job load/rpcbench-read-lab: 3 generators start at",
		"pods: 3 pending, 0 running, 0 succeeded, 0 failed",
		"pods: 1 pending, 2 running, 0 succeeded, 1 failed (index 1 retried)",
		"pod rpcbench-read-lab-1-a (index 1) failed: exit 137 (OOMKilled); the Job starts index 1 again",
		"pods: 0 pending, 0 running, 3 succeeded, 1 failed (index 1 retried)",
		"the Job started index 1 again, which succeeded",
		"3 result files in " + out,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	files, _ := filepath.Glob(filepath.Join(out, "rpcbench-read-lab-seg-*.rb"))
	if len(files) != 3 {
		t.Errorf("%d result files in %s; want 3", len(files), out)
	}
	// the objects went through the API, once each
	var creates []string
	for _, a := range cs.Actions() {
		if a.GetVerb() == "create" {
			creates = append(creates, a.GetResource().Resource)
		}
	}
	if !slices.Equal(creates, []string{"configmaps", "jobs"}) {
		t.Errorf("created %q; want the ConfigMap, then the Job", creates)
	}
}

// k8s collect reads the pods' logs through the API (pods/log): the part of a Job whose index
// failed for good is named, the merged report says which segment is missing, and the exit code is 4.
func TestK8sCollectMissingIndex(t *testing.T) {
	t.Parallel()
	srv := startLab(t, lab.Config{})
	code, log, stderr := mainOut("run", "--rate", "200", "--requests", "20", "--segment-index", "0/2", "--quiet", "--no-verdict", "--out-log", srv.URL())
	if code != cli.ExitOK {
		t.Fatalf("segment 0: exit %d\n%s", code, stderr)
	}
	n := int32(2)
	labels := map[string]string{"rpcbench.dev/run": "half"}
	pod := func(name string, index int, phase corev1.PodPhase, exit int32) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "load", Labels: labels, Annotations: map[string]string{k8s.CompletionIndexAnnotation: fmt.Sprint(index)}},
			Status: corev1.PodStatus{Phase: phase, ContainerStatuses: []corev1.ContainerStatus{{Name: "rpcbench",
				State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: exit}}}}},
		}
	}
	cs := fake.NewClientset(
		&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "half", Namespace: "load"}, Spec: batchv1.JobSpec{Completions: &n}},
		pod("half-0-x", 0, corev1.PodSucceeded, 0),
		pod("half-1-x", 1, corev1.PodFailed, 2),
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "load", Labels: map[string]string{"rpcbench.dev/run": "another"}}},
	)
	var logReads int
	cs.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "log" {
			return false, nil, nil
		}
		logReads++
		return true, &runtime.Unknown{Raw: []byte(log)}, nil
	})
	cluster := func(kubeFlags) (*k8s.Cluster, string, error) { return &k8s.Cluster{Client: cs}, "load", nil }
	out := filepath.Join(t.TempDir(), "half")
	code, stdout, errb := mainOn(cluster, "k8s", "collect", "--job", "half", "--out-dir", out)
	if code != cli.ExitCannotStart {
		t.Fatalf("exit %d; want %d for a missing index\nstdout:\n%s\nstderr:\n%s", code, cli.ExitCannotStart, stdout, errb)
	}
	if logReads != 1 {
		t.Errorf("%d logs read; want the succeeded pod's alone", logReads)
	}
	for _, want := range []string{"intended 10, sent 10, completed 10", "segments missing: 1/2:1"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, stdout)
		}
	}
	for _, want := range []string{"pod half-1-x (index 1) failed: exit 2", "no result file from index 1 of 2"} {
		if !strings.Contains(errb, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb)
		}
	}
}

func TestK8sClusterBadInput(t *testing.T) {
	t.Parallel()
	runUsageCases(t, []string{"k8s"}, []usageCase{
		{"no subcommand", nil, []string{"want a subcommand: job, run or collect"}},
		{"collect without a job", []string{"collect"}, []string{"--job: want the name of the Job"}},
		{"run with a claim", []string{"run", "--parallelism", "2", "--image", "img", "--results-claim", "r", "--", "--rate", "10", "http://127.0.0.1:1/"}, []string{"--results-claim: k8s run collects"}},
		{"run without a plan", []string{"run", "--parallelism", "2", "--image", "img"}, []string{"want a plan file (PLAN.yaml)"}},
		{"run with no generator", []string{"run", "--image", "img", "--", "--rate", "10", "http://127.0.0.1:1/"}, []string{"--parallelism 0"}},
	})
}
