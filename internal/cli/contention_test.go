package cli

import (
	"bytes"
	"strings"
	"testing"
)

func TestContentionCommand(t *testing.T) {
	t.Parallel()
	tests := []cliCase{
		// a small run: every counter in the table, every count checked
		{"small run", []string{"--goroutines", "4", "--iterations", "500", "--shards", "3"}, ExitOK,
			[]string{"4 goroutines × 500 adds, 3 shards", "mutex", "atomic", "sharded-padded", "channel", "2000  ok"}, nil},
		// a subset of the counters, in the order given
		{"subset", []string{"--goroutines", "2", "--iterations", "10", "--shards", "1", "--counters", "channel,mutex"}, ExitOK,
			[]string{"channel", "mutex"}, nil},
		{"zero goroutines", []string{"--goroutines", "0"}, ExitUsage, nil, []string{"-goroutines", "got 0"}},
		{"negative iterations", []string{"--iterations", "-1"}, ExitUsage, nil, []string{"-iterations", "got -1"}},
		{"negative shards", []string{"--shards", "-5"}, ExitUsage, nil, []string{"-shards", "got -5"}},
		{"not a number", []string{"--shards", "many"}, ExitUsage, nil, []string{"-shards", `got "many"`}},
		{"unknown counter", []string{"--counters", "spin"}, ExitUsage, nil, []string{"-counters", `unknown counter "spin"`}},
		{"too much work", []string{"--goroutines", "1000000", "--iterations", "1000000"}, ExitUsage, nil, []string{"--goroutines × --iterations"}},
		{"too many shards", []string{"--shards", "2000000000"}, ExitUsage, nil, []string{"--shards: got 2000000000; want at most"}},
		{"stray argument", []string{"extra"}, ExitUsage, nil, []string{`unexpected argument "extra"`}},
		{"help", []string{"--help"}, ExitOK, []string{"Examples:", "rpcbench contention --goroutines 500 --iterations 100000 --shards 500", "-shards"}, nil},
	}
	runCLICases(t, []string{"contention"}, tests)
}

func TestContentionTableChecksEveryRow(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := Main([]string{"contention", "--goroutines", "3", "--iterations", "100", "--shards", "7"}, strings.NewReader(""), &out, &errb); code != ExitOK {
		t.Fatalf("got exit %d; want 0; stderr: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	rows := lines[len(lines)-5:]
	for _, r := range rows {
		if !strings.HasSuffix(r, " 300  ok") {
			t.Errorf("row %q: want final count 300 and ok", r)
		}
	}
}
