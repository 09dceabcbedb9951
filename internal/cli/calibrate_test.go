package cli

import (
	"regexp"
	"strings"
	"testing"
)

// A calibration prints a row per rate and a verdict that follows from the rows: the floor is the
// first row's send lag p99, and the rate it kept up to is the highest row that says yes.
func TestCalibrate(t *testing.T) {
	t.Parallel()
	code, out, stderr := cliRun(t, "calibrate", "--start", "200", "--max", "400", "--step", "200ms", "--step-warmup", "0")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	row := regexp.MustCompile(`(?m)^ *([0-9.]+)/s +[0-9.]+ +\S+ +(\S+) +\S+ +(\S+) +(\S+)  (yes|no: .*)$`)
	rows := row.FindAllStringSubmatch(out, -1)
	if len(rows) == 0 || len(rows) > calibrateMaxSteps {
		t.Fatalf("got %d rows; want 1 to %d:\n%s", len(rows), calibrateMaxSteps, out)
	}
	if want := "floor: send lag p99 " + rows[0][2] + " at " + rows[0][1] + "/s\n"; !strings.Contains(out, want) {
		t.Errorf("no line %q:\n%s", want, out)
	}
	// every run of a rate, kept up ("yes") or not, counted from the rows
	all, yes := map[string]int{}, map[string]int{}
	anyYes := false
	for _, r := range rows {
		if !strings.Contains(r[3], "%") {
			t.Errorf("rate %s: CPU %q; want the generator's own CPU peak", r[1], r[3])
		}
		all[r[1]]++
		if r[5] == "yes" {
			yes[r[1]]++
			anyYes = true
		} else if !strings.Contains(r[5], "the generator") {
			t.Errorf("rate %s: %q; want what the generator did not keep", r[1], r[5])
		}
	}
	none := strings.Contains(out, "the generator did not keep up at any rate tried")
	if none == anyYes {
		t.Errorf("a run kept up: %v; the verdict says none did: %v\n%s", anyYes, none, out)
	}
	// a rate the verdict calls kept up kept up in every one of its runs
	if m := regexp.MustCompile(`kept up (?:at every rate tried, )?\(?.*?up to ([0-9.]+)/s`).FindStringSubmatch(out); m != nil && !strings.Contains(out, "in every run of no rate tried") {
		if r := m[1]; all[r] == 0 || yes[r] != all[r] {
			t.Errorf("the verdict says the generator kept up to %s/s, which kept up in %d of %d runs:\n%s", r, yes[r], all[r], out)
		}
	}
}

func TestCalibrateUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"calibrate", "--start", "1000", "--max", "10"}, "--max 10/s: want a rate at or above --start, 1000/s"},
		{[]string{"calibrate", "http://127.0.0.1:1/"}, `unexpected argument "http://127.0.0.1:1/": calibrate loads its own null target`},
		{[]string{"calibrate", "--connections", "0"}, "--connections 0: want 1 or more"},
		{[]string{"calibrate", "--start", "0"}, "--start: want a rate above 0"},
	} {
		code, _, stderr := cliRun(t, tc.args...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, ExitUsage, tc.want)
		}
	}
}
