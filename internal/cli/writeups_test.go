package cli

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// shortWriteup cuts a write-up's lengths, levels and sizes to a short form that still runs every
// scenario against every target: steps of 300 ms, 100 ms ramps and warm-ups, a few connections, low
// rates, small prefills and chains, 3 capacity steps each deciding alone, its e2e suite replaced by
// one test event and its package's time, its build by true.
var shortWriteup = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\b(step|duration): \d+[a-z]+`), "$1: 300ms"},
	{regexp.MustCompile(`\b(ramp|warmup): [1-9]\d*[a-z]+`), "$1: 100ms"},
	{regexp.MustCompile(`steps: \[50, 100, 200, 500\]`), "steps: [5, 10]"},
	{regexp.MustCompile(`steps: \[300, 1000, 2000\]`), "steps: [50, 100]"},
	{regexp.MustCompile(`\brate: 2000\b`), "rate: 200"},
	{regexp.MustCompile(`\bconnections: 50\b`), "connections: 5"},
	{regexp.MustCompile(`\bload: 10\b`), "load: 2"},
	{regexp.MustCompile(`max_steps: \d+`), "max_steps: 3, confirm: 1"},
	{regexp.MustCompile(`--prefill 100000\b`), "--prefill 1000"},
	{regexp.MustCompile(`--prefill 13000000\b`), "--prefill 1000"},
	{regexp.MustCompile(`randInt 0 12999999\b`), "randInt 0 999"},
	{regexp.MustCompile(`randInt 0 14299999\b`), "randInt 0 1099"},
	{regexp.MustCompile(`ready_timeout: 10m\b`), "ready_timeout: 30s"},
	{regexp.MustCompile(`randInt 0 99999\b`), "randInt 0 999"},
	{regexp.MustCompile(`randInt 0 9999\b`), "randInt 0 999"},
	{regexp.MustCompile(`\brequests: 10000\b`), "requests: 1000"},
	{regexp.MustCompile(`\bconnections: 100\b`), "connections: 5"},
	{regexp.MustCompile(`"limit":1000\b`), `"limit":50`},
	{regexp.MustCompile(`HopCount == 1000\b`), "HopCount == 50"},
	{regexp.MustCompile(`go test -json -count=1 \./e2e`), `printf '{"Action":"pass","Test":"TestShort"}\n{"Action":"pass","Package":"e2e","Elapsed":0.012}\n'`},
	{regexp.MustCompile(`go test -c -o /dev/null \./e2e`), "true"},
	{regexp.MustCompile(`-c 100 -n 100000\b`), "-c 5 -n 200"},
}

var writeupPort = regexp.MustCompile(`127\.0\.0\.1:(18\d\d\d)\b`)

// Every write-up of examples/writeups runs in a short form — its plans through `rpcbench bench`,
// its scripts through sh — against the built-in targets it starts (this test binary standing in
// for rpcbench on the PATH), on free loopback ports; each report holds the figures the write-up's
// README maps — in report.md, and by name with plausible values in report.json
// (writeupJSONChecks) — and no target is left running.
func TestWriteupsShort(t *testing.T) {
	t.Parallel()
	src := filepath.Join("..", "..", "examples", "writeups")
	names, err := filepath.Glob(filepath.Join(src, "*"))
	if err != nil {
		t.Fatal(err)
	}
	dir, ports := t.TempDir(), map[string]string{}
	var plans, scripts []string
	for _, name := range names {
		base := filepath.Base(name)
		if st, err := os.Stat(name); err != nil || st.IsDir() || base == "README.md" {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(base, ".yaml") && !strings.HasSuffix(base, ".sh") { // a file a plan reads
			if err := os.WriteFile(filepath.Join(dir, base), b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		text := string(b)
		for _, r := range shortWriteup {
			text = r.re.ReplaceAllString(text, r.with)
		}
		text = writeupPort.ReplaceAllStringFunc(text, func(a string) string {
			if ports[a] == "" {
				ports[a] = freeLoopback(t)
			}
			return ports[a]
		})
		if err := os.WriteFile(filepath.Join(dir, base), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(base, ".sh") {
			scripts = append(scripts, base)
		} else {
			plans = append(plans, base)
		}
	}
	if len(plans) < 5 || len(scripts) < 1 {
		t.Fatalf("examples/writeups: %d plans, %d scripts; want the write-ups", len(plans), len(scripts))
	}
	shim, env := rpcbenchOnPath(t, dir)
	env = append(env, "ITERATIONS=100")
	// what each report must hold: the figures examples/writeups/README.md maps
	want := map[string][]string{
		"rpc-daemon.yaml": {"## methods · step 8/8: eth_chainId alone at 100/s", "## methods: each alone", "| eth_getBalance alone at 50/s | throughput |", "|  | p95 |",
			"Resources compared", "| daemon | node's command, pid ", "## batch · step 4/4: batch 100", "## batch: batch swept", "| batch 1 | throughput |", "| batch 100 | throughput |",
			"## pool · step 3/3: daemon --max-idle 100", "## pool: daemon --max-idle swept", "| daemon --max-idle 1 | throughput |", "| daemon --max-idle 100 | throughput |", "## heavy"},
		"mesh.yaml": {"## hops", "| in-process | http's command, pid ", "| grpc vs in-process |", "Resources compared", "| hop_latency_ns p50 |", "| hop_latency_ns p99 |", "Answer metrics of in-process", "Answer metrics of grpc", "| http | command, pid ", "| 6 (pids "},
		"kv.yaml": {"## put-get", "| get |", "| put |", "## put-then-get · step 2/2: get alone", "| put alone | throughput |", "|  | stdev |", "| mean |", "## capacity (capacity search)", "Capacity of kv against p99<20ms,errors<0.1%:", "| CPU (command, pid ",
			// the prefill, timed, before the runs; wrk's transfer/s; the misses, a row each; capacity per operation
			"## targets", "| kv | ", "/v0/prefill answered 200 | prefilled 1000 keys, 100000 bytes of values, in ", "| transfer/s | ", "| misses | ", "| miss rate | ", "|  | transfer/s | ", "|  | misses | ",
			"## capacity-each · step 1/2: put alone (capacity search)", "## capacity-each · step 2/2: get alone (capacity search)", "Capacity of kv, put alone, against p99<20ms,errors<0.1%:", "Capacity of kv, get alone, against p99<20ms,errors<0.1%:"},
		"jsonrpc-impls.yaml": {"## methods · step 2/2: 10 connections", "| eth_getBlockByNumber |", "## methods: each endpoint over the steps", "| 10 connections | eth_blockNumber | throughput |", "|  | eth_getBalance | throughput |", "| relayed | command, pid ",
			"| relayed vs direct |", "## methods: whole scenario", "Resources over the whole scenario", "## e2e (command)", "| relayed | 0 |",
			"## each-method · step 6/6: eth_estimateGas alone at its own 2 connections", "| eth_call alone at its own 2 connections | throughput |", "|  | requests |", "|  | p95 |",
			"|  | eth_chainId | throughput |", "| eth_chainId alone | throughput |", "build, before the runs and in no target's wall time: exit 0 in ",
			"| target | exit | wall time | suite time | passed | failed | skipped | suite time vs direct |", " | 12ms | 1 | 0 | 0 |"},
		"items-http.yaml": {"## preload", "## max", "## read", "| https vs http |"},
		"items-grpc.yaml": {"## preload", "## max", "## read", "| grpcs vs grpc |"},
	}
	for _, p := range plans {
		cmd := exec.Command(shim, "bench", "--quiet", "--format", "markdown", "--out-dir", filepath.Join(dir, "run-"+p), filepath.Join(dir, p))
		out := runWriteup(t, cmd, env)
		if want[p] == nil {
			t.Errorf("%s: no expected figures in this test: add them", p)
		}
		for _, w := range want[p] {
			if !strings.Contains(out, w) {
				t.Errorf("%s: report lacks %q:\n%s", p, w, out)
			}
		}
		if p == "rpc-daemon.yaml" { // reports: [vegeta]: each run in vegeta report's layout
			for _, f := range []string{"heavy.node.vegeta.txt", "pool.step3.daemon.vegeta.txt"} {
				if b, err := os.ReadFile(filepath.Join(dir, "run-"+p, f)); err != nil || !strings.HasPrefix(string(b), "Requests      [total, rate, throughput]") {
					t.Errorf("%s: %s: %v; want vegeta's layout:\n%s", p, f, err, b)
				}
			}
		}
		if c, ok := writeupJSONChecks[p]; !ok {
			t.Errorf("%s: no checks of its report.json in this test: add them", p)
		} else if r := checkWriteupJSON(t, p, filepath.Join(dir, "run-"+p), c.tables, c.steps); c.more != nil {
			c.more(t, r, filepath.Join(dir, "run-"+p))
		}
		if p == "kv.yaml" { // the store's profiles, declared in the plan, over put-get's measured window
			// a target slowed past the bounds of a profile's wait (a loaded machine, the race
			// detector) may leave one out, but never silently: the run's notes then say which and why
			saved := 0
			for f, why := range map[string]string{"put-get.kv.cpu.pprof": "CPU profile: ", "put-get.kv.allocs.pprof": "allocs at the "} {
				if st, err := os.Stat(filepath.Join(dir, "run-"+p, f)); err == nil && st.Size() > 0 {
					saved++
				} else if !strings.Contains(out, "profiling the target failed") || !strings.Contains(out, why) {
					t.Errorf("%s: %s: %v, and the notes do not say why (%q); want the target's profile in the run directory, or why not:\n%s", p, f, err, why, out)
				}
			}
			if saved == 0 {
				t.Errorf("%s: neither profile of the target saved; want at least one", p)
			}
			// a result file per step of each operation's search
			for _, f := range []string{"capacity.capacity1.kv.rb", "capacity-each.step1.capacity1.kv.rb", "capacity-each.step2.capacity1.kv.rb"} {
				if st, err := os.Stat(filepath.Join(dir, "run-"+p, f)); err != nil || st.Size() == 0 {
					t.Errorf("%s: %s: %v; want a result file per capacity step", p, f, err)
				}
			}
			// the knee chart of each operation's search in the plan's HTML report
			page, _ := os.ReadFile(filepath.Join(dir, "run-"+p, "report.html"))
			for _, w := range []string{"capacity-each (put alone) on kv: latency against rate", "capacity-each (get alone) on kv: latency against rate", "capacity on kv: latency against rate"} {
				if !strings.Contains(string(page), w) || strings.Count(string(page), "<svg") < 3 {
					t.Errorf("%s: report.html lacks the chart %q", p, w)
				}
			}
		}
		if p == "jsonrpc-impls.yaml" { // each step's ramp rises from the step before's level (ramp_from: previous)
			b, err := os.ReadFile(filepath.Join(dir, "run-"+p, "report.txt"))
			for _, w := range []string{"s rising from 0 connections, ", "s rising from 5 connections, "} {
				if err != nil || !strings.Contains(string(b), w) {
					t.Errorf("%s: report.txt: %v; want its steps' ramps, %q", p, err, w)
				}
			}
		}
		page, err := os.ReadFile(filepath.Join(dir, "run-"+p, "report.html"))
		if err != nil || !strings.Contains(string(page), "<h2>read</h2>") && !strings.Contains(string(page), "Resources compared") {
			t.Errorf("%s: report.html: %v; want the page with its tables", p, err)
		}
	}
	for _, s := range scripts {
		out := filepath.Join(dir, "run-"+s)
		runWriteup(t, exec.Command("sh", filepath.Join(dir, s), out), env)
		for file, w := range map[string]string{"transports.md": "gRPC+TLS vs HTTP", "contention.txt": "sharded-padded"} {
			b, err := os.ReadFile(filepath.Join(out, file))
			if err != nil || !strings.Contains(string(b), w) {
				t.Errorf("%s: %s: %v; want it to hold %q:\n%s", s, file, err, w, b)
			}
		}
		// the headline (maximum throughput at 100 connections) first, then the fixed-rate reads,
		// each comparing the four transports
		if b, err := os.ReadFile(filepath.Join(out, "transports.md")); err != nil || !headlineThenReads(string(b)) {
			t.Errorf("%s: transports.md: %v; want the maximum throughput table, then the reads at 2,000/s, each against HTTP:\n%s", s, err, b)
		}
	}
	for orig, addr := range ports {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			t.Errorf("%s (for %s) still answers after the write-ups ran", addr, orig)
		}
	}
}

// runWriteup runs cmd and returns its stdout; it may exit 1 when an objective fails on a busy
// machine, or a capacity search finds no rate that holds it (each stderr line then says so), but
// nothing else.
func runWriteup(t *testing.T, cmd *exec.Cmd, env []string) string {
	t.Helper()
	cmd.Env = env
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil && cmd.ProcessState.ExitCode() == ExitSLO {
		for line := range strings.Lines(stderr.String()) {
			if !strings.Contains(line, "SLO failed") && !strings.Contains(line, "no rate tried met") && !strings.Contains(line, "no rate confirmed") && !strings.HasPrefix(line, "rpcbench bench: run directory") {
				t.Errorf("%v: exit 1 with %q", cmd.Args, line)
			}
		}
		err = nil
	}
	if err != nil {
		t.Errorf("%v: %v\n%s", cmd.Args, err, stderr.String())
	}
	return stdout.String()
}

// headlineThenReads says whether transports.md holds its two sections in order, each comparing
// the four transports against HTTP: the closed-model runs (as many connections as the short form
// gives them), then the open-model reads at the (short form's) fixed rate.
func headlineThenReads(md string) bool {
	head, reads, ok := strings.Cut(md, "# Reads at a fixed 2,000/s")
	return ok && strings.HasPrefix(head, "# Maximum throughput at 100 connections") &&
		strings.Contains(head, "| model | closed | closed | closed | closed |") && strings.Contains(head, "| connections | 5 | 5 | 5 | 5 |") &&
		strings.Contains(reads, "| model | open | open | open | open |") && strings.Contains(reads, "| rate | 200/s | 200/s | 200/s | 200/s |") &&
		strings.Contains(head, "gRPC+TLS vs HTTP") && strings.Contains(reads, "gRPC+TLS vs HTTP")
}

// The full-length form of write-up (d), as examples/writeups/README.md gives it — its sed command
// run on the plan — has the published shape: steps of 5 minutes, each after a 1-minute ramp from
// the step before's connections, 63 minutes in all (4 steps × 2 targets × 6 min, and 6 methods ×
// 2 targets × 75 s alone), which --dry-run says.
func TestWriteupFullLength(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("..", "..", "examples", "writeups", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	sed := regexp.MustCompile(`(?m)^sed (-e '[^']*') examples/writeups/jsonrpc-impls\.yaml \\\n  > examples/writeups/jsonrpc-impls-full\.yaml$`).FindSubmatch(readme)
	if sed == nil {
		t.Fatal("examples/writeups/README.md: no sed command writing jsonrpc-impls-full.yaml")
	}
	dir := t.TempDir()
	full := filepath.Join(dir, "jsonrpc-impls-full.yaml")
	script := "sed " + string(sed[1]) + " " + filepath.Join("..", "..", "examples", "writeups", "jsonrpc-impls.yaml") + " > " + full
	if out, err := exec.Command("sh", "-c", script).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	code, stdout, stderr := mainOut("bench", "--dry-run", full)
	for _, w := range []string{"22 runs, at least 1h3m0s",
		"methods step 1/4 (50 connections) on direct: closed model, 50 connections, 1m0s warm-up rising from 0 connections, 5m0s measured",
		"methods step 4/4 (500 connections) on relayed: closed model, 500 connections, 1m0s warm-up rising from 200 connections, 5m0s measured"} {
		if code != ExitOK || !strings.Contains(stdout, w) {
			t.Errorf("bench --dry-run of the full-length plan: exit %d, lacks %q:\n%s%s", code, w, stdout, stderr)
		}
	}
}
