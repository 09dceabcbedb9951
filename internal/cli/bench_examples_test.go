package cli

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rpcbench/rpcbench/bench"
	"github.com/rpcbench/rpcbench/plan/planfile"
)

// Every plan file in examples/ reads, prepares (its files found beside it) and dry-runs.
func TestExamplePlansDryRun(t *testing.T) {
	t.Parallel()
	names, err := filepath.Glob(filepath.Join("..", "..", "examples", "*.yaml"))
	if err != nil || len(names) < 2 {
		t.Fatalf("examples/*.yaml: %v, %d files; want the example plans", err, len(names))
	}
	for _, name := range names {
		b, err := readBenchFile(name)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if _, err := bench.Check(b, nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if code, stdout, stderr := mainOut("bench", "--dry-run", name); code != ExitOK || !strings.Contains(stdout, "runs, in order:") {
			t.Errorf("bench --dry-run %s: exit %d\n%s%s", name, code, stdout, stderr)
		}
	}
}

// examples/compare-lab.yaml runs in a short form: its steps and durations cut to fractions of a
// second, its ports free ones, its targets started by its own `rpcbench serve lab` commands (this
// test binary standing in for rpcbench on the PATH), its e2e suite replaced by one test event.
func TestExampleCompareLabShort(t *testing.T) {
	t.Parallel()
	text := readRepoFile(t, "examples/compare-lab.yaml")
	short := strings.NewReplacer(
		"step: 5s", "step: 300ms", "ramp: 2s", "ramp: 100ms", "duration: 5s", "duration: 300ms",
		"127.0.0.1:18081", freeLoopback(t), "127.0.0.1:18082", freeLoopback(t),
		"go test -json -count=1 ./e2e", `printf '{"Action":"pass","Test":"TestShort"}\n'`,
		"go test -c -o /dev/null ./e2e", "echo built",
	).Replace(text)
	if short == text || strings.Contains(short, "18081") || strings.Contains(short, "./e2e") {
		t.Fatal("examples/compare-lab.yaml changed: update the replacements of this test")
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "compare-lab.yaml")
	if err := os.WriteFile(name, []byte(short), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := benchCmd(t, dir, "bench", "--quiet", "--format", "markdown", "--out-dir", filepath.Join(dir, "run"), name)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// the plan's SLO may fail on a busy machine (exit 1): the run is whole all the same
	if err := cmd.Run(); err != nil && (cmd.ProcessState.ExitCode() != ExitSLO || strings.Count(stderr.String(), "\n") != 1+strings.Count(stderr.String(), "SLO failed: p99<50ms")) {
		t.Fatalf("bench: %v\n%s", err, stderr.String())
	}
	for _, w := range []string{"## connections · step 2/2: 50 connections", "| slow vs fast |", "| read | throughput |", "## rate", "| fast | 0 |",
		"build, before the runs and in no target's wall time: exit 0 in ", "| 2 | fast | 0 |", "2 rounds, in the order fast, slow, slow, fast"} {
		if !strings.Contains(stdout.String(), w) {
			t.Errorf("report lacks %q:\n%s", w, stdout.String())
		}
	}
	b, err := planfile.ReadFile(name, strings.NewReader(short))
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range b.Targets {
		host := strings.TrimSuffix(strings.TrimPrefix(tg.URL, "http://"), "/")
		if c, err := net.Dial("tcp", host); err == nil {
			c.Close()
			t.Errorf("target %s still answers on %s after the run", tg.Name, host)
		}
	}
}

// benchCmd is an rpcbench command run by this test binary, which stands in for rpcbench on the
// PATH too (see rpcbenchOnPath), so that a plan's `rpcbench serve` commands start.
func benchCmd(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	shim, env := rpcbenchOnPath(t, dir)
	cmd := exec.Command(shim, args...)
	cmd.Env = env
	return cmd
}

// rpcbenchOnPath makes this test binary rpcbench, a shim in dir/bin, and returns the shim and an
// environment with dir/bin first on its PATH, so that the `rpcbench …` commands of plans and
// scripts run it.
func rpcbenchOnPath(t *testing.T, dir string) (shim string, env []string) {
	t.Helper()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	shim = filepath.Join(bin, "rpcbench")
	text := "#!/bin/sh\nexec '" + os.Args[0] + "' '-test.run=^TestHelperProcess$' -- \"$@\"\n"
	if err := os.WriteFile(shim, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return shim, append(os.Environ(), "RPCBENCH_HELPER_PROCESS=1", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// examples/smoke-junit.yaml runs as printed but on free ports: its smoke suite (curl) writes
// JUnit XML to $RPCBENCH_JUNIT, three passing cases against each target, the reports kept.
func TestExampleSmokeJUnit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
			t.Fatalf("the example's suite needs curl (%v): CI (CI=%s) must run this test, not skip it", err, os.Getenv("CI"))
		}
		t.Skip("the example's suite needs curl")
	}
	text := readRepoFile(t, "examples/smoke-junit.yaml")
	short := strings.NewReplacer("127.0.0.1:18071", freeLoopback(t), "127.0.0.1:18072", freeLoopback(t)).Replace(text)
	if strings.Contains(short, "1807") {
		t.Fatal("examples/smoke-junit.yaml changed: update the replacements of this test")
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "smoke-junit.yaml")
	os.Mkdir(filepath.Join(dir, "e2e"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "e2e", "smoke.sh"), []byte(readRepoFile(t, "examples/e2e/smoke.sh")), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(short), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	cmd := benchCmd(t, dir, "bench", "--quiet", "--format", "markdown", "--out-dir", out, name)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("bench: %v\n%s", err, stderr.String())
	}
	for _, w := range []string{"| fast | 0 | ", "| slow | 0 | ", "| 3 | 0 | 0 |"} {
		if !strings.Contains(stdout.String(), w) {
			t.Errorf("report lacks %q:\n%s", w, stdout.String())
		}
	}
	for _, f := range []string{"smoke.fast.junit.xml", "smoke.slow.junit.xml"} {
		if b, err := os.ReadFile(filepath.Join(out, f)); err != nil || !strings.Contains(string(b), `<testcase classname="smoke" name="list"/>`) {
			t.Errorf("%s: %v\n%s", f, err, b)
		}
	}
}

// freeLoopback returns a loopback address free now, for a server a command of the test starts
// later. Its port is below the kernel's range of ephemeral ports, which the connections and the
// :0 listeners of the tests running beside it take from: a port from that range, freed here, could
// be taken again before the command binds it. Each address is handed out once per test binary.
func freeLoopback(t *testing.T) string {
	t.Helper()
	lo := 32768 // Linux's default lower end of ip_local_port_range
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > 11000 {
				lo = n
			}
		}
	}
	loopbackMu.Lock()
	defer loopbackMu.Unlock()
	for range 1000 {
		port := 10000 + rand.IntN(lo-10000)
		if loopbackGiven[port] {
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue // taken
		}
		ln.Close()
		loopbackGiven[port] = true
		return ln.Addr().String()
	}
	t.Fatal("no free loopback port below the ephemeral range in 1000 tries")
	return ""
}

var (
	loopbackMu    sync.Mutex
	loopbackGiven = map[int]bool{}
)
