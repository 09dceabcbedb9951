package k8s

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/rpcbench/rpcbench/k8s/frame"
)

// CompletionIndexAnnotation holds the completion index of a pod of an Indexed Job.
const CompletionIndexAnnotation = "batch.kubernetes.io/job-completion-index"

// DefaultEvery is how often Cluster.Wait looks at the Job.
const DefaultEvery = 2 * time.Second

// Cluster runs the manifests of Manifests through the Kubernetes API: Apply, Wait, Collect. The
// zero value has no client; a Cluster is safe for concurrent use when its Client is.
type Cluster struct {
	Client kubernetes.Interface
	// Logs returns the log of a pod's rpcbench container; nil: through Client (pods/log).
	Logs func(ctx context.Context, namespace, pod string) (io.ReadCloser, error)
	// Every is how often Wait looks at the Job and its pods; 0: DefaultEvery.
	Every time.Duration
}

// Apply creates the ConfigMap and the Secret (each when not nil) and the Job, in the namespace of
// the Job. An object of that name already there is an error: a run never reuses another's objects.
//
// When one cannot be created, those it created before are deleted again: a Secret holding the
// run's credentials is never left behind by a run that did not start.
func (c *Cluster) Apply(ctx context.Context, cm *corev1.ConfigMap, secret *corev1.Secret, job *batchv1.Job) error {
	ns := job.Namespace
	var created []func(context.Context) error
	undo := func(err error) error {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		for i := len(created) - 1; i >= 0; i-- {
			if derr := created[i](dctx); derr != nil {
				err = errors.Join(err, fmt.Errorf("k8s: deleting what this run created: %w", derr))
			}
		}
		return err
	}
	if secret != nil {
		if _, err := c.Client.CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
			return applyError("Secret", ns, secret.Name, err)
		}
		created = append(created, func(ctx context.Context) error {
			return c.Client.CoreV1().Secrets(ns).Delete(ctx, secret.Name, metav1.DeleteOptions{})
		})
	}
	if cm != nil {
		if _, err := c.Client.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			return undo(applyError("ConfigMap", ns, cm.Name, err))
		}
		created = append(created, func(ctx context.Context) error {
			return c.Client.CoreV1().ConfigMaps(ns).Delete(ctx, cm.Name, metav1.DeleteOptions{})
		})
	}
	if _, err := c.Client.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		return undo(applyError("Job", ns, job.Name, err))
	}
	return nil
}

func applyError(kind, ns, name string, err error) error {
	if apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("k8s: a %s named %s is in the namespace %s already: give another name, or delete the old run (kubectl delete -n %s job,configmap,secret %s)", kind, name, ns, ns, name)
	}
	return fmt.Errorf("k8s: creating the %s %s/%s: %w", kind, ns, name, err)
}

// Pod is what Wait and Collect say about one pod of the Job.
type Pod struct {
	Name  string
	Index int // the completion index; -1 when the pod has none
	Phase corev1.PodPhase
	// ExitCode and Reason say how its container ended (Reason e.g. OOMKilled, Error); 0 and ""
	// while it runs.
	ExitCode int32
	Reason   string
}

func (p Pod) String() string {
	s := fmt.Sprintf("pod %s (index %d) %s", p.Name, p.Index, strings.ToLower(string(p.Phase)))
	if p.Phase == corev1.PodFailed {
		s += fmt.Sprintf(": exit %d", p.ExitCode)
		if p.Reason != "" {
			s += " (" + p.Reason + ")"
		}
	}
	return s
}

// Status is the state of the Job's pods at one look.
type Status struct {
	Pending, Running, Succeeded, Failed int
	Pods                                []Pod // sorted by index, then name
	// Done says the Job ended: complete, or failed (Failed holds the reason the controller gave).
	Done       bool
	JobFailure string
}

// Retried returns the indexes with a failed pod and a later one: the Job started them again.
func (s Status) Retried() []int {
	failed, again := map[int]bool{}, map[int]bool{}
	var out []int
	for _, p := range s.Pods {
		if p.Phase == corev1.PodFailed {
			failed[p.Index] = true
		} else {
			again[p.Index] = true
		}
	}
	for i := range failed {
		if again[i] {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// Line says the status in one line: "pods: 2 pending, 5 running, 1 succeeded, 1 failed (index 3
// retried)".
func (s Status) Line() string {
	l := fmt.Sprintf("pods: %d pending, %d running, %d succeeded, %d failed", s.Pending, s.Running, s.Succeeded, s.Failed)
	if r := s.Retried(); len(r) > 0 {
		idx := make([]string, len(r))
		for i, x := range r {
			idx[i] = strconv.Itoa(x)
		}
		word := "index "
		if len(r) > 1 {
			word = "indexes "
		}
		l += " (" + word + strings.Join(idx, ", ") + " retried)"
	}
	return l
}

// Look returns the status of the Job ns/name and its pods now.
func (c *Cluster) Look(ctx context.Context, ns, name string) (Status, error) {
	var st Status
	job, err := c.Client.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return st, fmt.Errorf("k8s: the Job %s/%s: %w", ns, name, err)
	}
	for _, cond := range job.Status.Conditions {
		if cond.Status != corev1.ConditionTrue {
			continue
		}
		switch cond.Type {
		case batchv1.JobComplete:
			st.Done = true
		case batchv1.JobFailed:
			st.Done, st.JobFailure = true, strings.TrimSpace(cond.Reason+": "+cond.Message)
		}
	}
	sel := labels.SelectorFromSet(labels.Set{"rpcbench.dev/run": name}).String()
	list, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return st, fmt.Errorf("k8s: the pods of the Job %s/%s: %w", ns, name, err)
	}
	for _, p := range list.Items {
		pod := podOf(p)
		switch pod.Phase {
		case corev1.PodSucceeded:
			st.Succeeded++
		case corev1.PodFailed:
			st.Failed++
		case corev1.PodRunning:
			st.Running++
		default:
			st.Pending++
		}
		st.Pods = append(st.Pods, pod)
	}
	sort.Slice(st.Pods, func(i, j int) bool {
		a, b := st.Pods[i], st.Pods[j]
		return a.Index < b.Index || a.Index == b.Index && a.Name < b.Name
	})
	return st, nil
}

func podOf(p corev1.Pod) Pod {
	pod := Pod{Name: p.Name, Index: -1, Phase: p.Status.Phase}
	if s, ok := p.Annotations[CompletionIndexAnnotation]; ok {
		if i, err := strconv.Atoi(s); err == nil {
			pod.Index = i
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		if t := cs.State.Terminated; cs.Name == "rpcbench" && t != nil {
			pod.ExitCode, pod.Reason = t.ExitCode, t.Reason
		}
	}
	return pod
}

// Wait looks at the Job ns/name every c.Every until it ends, calling seen with each status that
// differs from the one before. It returns the last status; when ctx ends first, that status and
// ctx's error.
func (c *Cluster) Wait(ctx context.Context, ns, name string, seen func(Status)) (Status, error) {
	every := c.Every
	if every == 0 {
		every = DefaultEvery
	}
	var last Status
	first := true
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case <-t.C:
		}
		st, err := c.Look(ctx, ns, name)
		if err != nil {
			if ctx.Err() != nil {
				return last, ctx.Err()
			}
			return last, err
		}
		if first || st.Line() != last.Line() || st.Done != last.Done {
			seen(st)
		}
		first, last = false, st
		if st.Done {
			return st, nil
		}
		t.Reset(every)
	}
}

// Collected is what Collect found: the result file of each completion index that has one, and
// what became of every pod.
type Collected struct {
	Completions int
	Files       map[int][]byte // by completion index
	Status      Status
	// Problems say why an index has no result file: a pod that failed (and was not retried to
	// success), one still running, a log without a complete framed file.
	Problems []string
}

// Missing returns the completion indexes without a result file.
func (c *Collected) Missing() []int {
	var out []int
	for i := range c.Completions {
		if _, ok := c.Files[i]; !ok {
			out = append(out, i)
		}
	}
	return out
}

// Collect fetches the result file each succeeded pod of the Job ns/name printed framed into its
// log (run --out-log). A pod that failed is noted in Problems only when no other pod of its index
// succeeded; Collect returns an error only when the Job cannot be read.
func (c *Cluster) Collect(ctx context.Context, ns, name string) (*Collected, error) {
	job, err := c.Client.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("k8s: the Job %s/%s: %w", ns, name, err)
	}
	st, err := c.Look(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	out := &Collected{Files: map[int][]byte{}, Status: st}
	if job.Spec.Completions != nil {
		out.Completions = int(*job.Spec.Completions)
	}
	why := map[int][]string{}
	for _, p := range st.Pods {
		if p.Phase != corev1.PodSucceeded {
			why[p.Index] = append(why[p.Index], p.String())
			continue
		}
		if _, done := out.Files[p.Index]; done {
			continue
		}
		data, err := c.resultOf(ctx, ns, p.Name)
		if err != nil {
			why[p.Index] = append(why[p.Index], fmt.Sprintf("pod %s (index %d): %v", p.Name, p.Index, err))
			continue
		}
		out.Files[p.Index] = data
	}
	for i := range out.Completions {
		if _, ok := out.Files[i]; ok {
			continue
		}
		if len(why[i]) == 0 {
			why[i] = []string{fmt.Sprintf("index %d: no pod", i)}
		}
		out.Problems = append(out.Problems, why[i]...)
	}
	return out, nil
}

// resultOf returns the one result file framed in the log of pod.
func (c *Cluster) resultOf(ctx context.Context, ns, pod string) ([]byte, error) {
	logs := c.Logs
	if logs == nil {
		logs = func(ctx context.Context, ns, pod string) (io.ReadCloser, error) {
			return c.Client.CoreV1().Pods(ns).GetLogs(pod, &corev1.PodLogOptions{Container: "rpcbench"}).Stream(ctx)
		}
	}
	rc, err := logs(ctx, ns, pod)
	if err != nil {
		return nil, fmt.Errorf("its log: %w", err)
	}
	defer rc.Close()
	frames, err := frame.Read(rc)
	switch {
	case err != nil:
		return nil, err
	case len(frames) == 0:
		return nil, errors.New("its log holds no result file (was it run with --out-log, and did the log rotate?)")
	case len(frames) > 1:
		return nil, fmt.Errorf("its log holds %d result files: want one", len(frames))
	}
	return frames[0].Data, nil
}
