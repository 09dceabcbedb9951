package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/report"
)

// CountJUnit counts test cases by what they hold; the suites' own counts (here wrong on purpose)
// are not read. Counts by hand from the reports.
func TestCountJUnit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, xml string
		want      TestCounts
	}{
		// pytest --junitxml: a passed case, a failure, an error (counted failed), a skip, a pass with output
		{"pytest", `<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="1" failures="1" skipped="1" tests="9">
<testcase classname="t" name="a" time="0.1"/>
<testcase classname="t" name="b"><failure message="assert 1 == 2">trace</failure></testcase>
<testcase classname="t" name="c"><error message="fixture failed"/></testcase>
<testcase classname="t" name="d"><skipped message="no db"/></testcase>
<testcase classname="t" name="e"><system-out>ok</system-out></testcase>
</testsuite></testsuites>`, TestCounts{Passed: 2, Failed: 2, Skipped: 1}},
		// suites nested in a bare <testsuite>; a case with both a failure and a skip failed
		{"nested", `<testsuite name="outer" tests="99"><testsuite name="inner"><testsuite name="deeper">
<testcase name="x"/></testsuite><testcase name="y"><skipped/></testcase></testsuite>
<testcase name="z"><skipped/><failure/></testcase></testsuite>`, TestCounts{Passed: 1, Failed: 1, Skipped: 1}},
		// surefire: a flaky case passed on a rerun; a case that failed every rerun has its <failure>
		{"surefire reruns", `<testsuite name="T" tests="2"><testcase name="f"><flakyFailure message="m"/></testcase>
<testcase name="g"><failure message="m"/><rerunFailure message="m"/></testcase></testsuite>`, TestCounts{Passed: 1, Failed: 1}},
		// a report of no test case: counted, all zero
		{"empty", `<testsuites/>`, TestCounts{}},
	}
	for _, tc := range tests {
		got, err := CountJUnit(strings.NewReader(tc.xml))
		if err != nil || got == nil || *got != tc.want {
			t.Errorf("%s: got %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}

// A report that is not JUnit XML is an error that says where and what.
func TestCountJUnitErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, xml, want string }{
		{"not XML", "PASS\nok  p 0.1s\n", "3:1: no <testsuites> or <testsuite> element: want a JUnit XML report"},
		{"another document", "<html><body/></html>", "1:7: <html>: want <testsuites> or <testsuite> at the top of a JUnit XML report"},
		{"mismatched", "<testsuites>\n  <testcase>\n</testsuites>", "3:14: element <testcase> closed by </testsuites>"},
		{"cut short", "<testsuites>\n<testsuite><testcase name=\"a\"/>", "2:32: unexpected EOF"},
	}
	for _, tc := range tests {
		got, err := CountJUnit(strings.NewReader(tc.xml))
		if err == nil || err.Error() != tc.want || got != nil {
			t.Errorf("%s: got %+v, %v; want the error %q", tc.name, got, err, tc.want)
		}
	}
}

// TestCommandJUnit runs three command scenarios against two targets, each writing JUnit XML as
// test runners do: to a file the plan names (pytest --junitxml), to the file rpcbench gives in
// RPCBENCH_JUNIT, and to several files matched by a glob (maven surefire). Counts by hand from the
// reports the commands write; a report left from before, or by the other target, is not counted.
func TestCommandJUnit(t *testing.T) {
	t.Parallel()
	dir, logDir := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "reports"), 0o755); err != nil {
		t.Fatal(err)
	}
	old := `<testsuite><testcase name="old"><failure/></testcase></testsuite>`
	if err := os.WriteFile(filepath.Join(dir, "reports", "TEST-Old.xml"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	// py: a writes one pass and one failure and exits 1 as pytest does; b exits 0 and writes nothing
	py := `echo "$RPCBENCH_JUNIT" > junit-env.txt
if [ "$RPCBENCH_TARGET_NAME" = a ]; then
  mkdir -p out
  printf '<testsuites><testsuite><testcase name="t1"/><testcase name="t2"><failure/></testcase></testsuite></testsuites>' > out/report.xml
  exit 1
fi`
	// rundir: a writes a skip and a pass; b a report cut short
	rundir := `if [ "$RPCBENCH_TARGET_NAME" = a ]; then
  printf '<testsuite><testcase name="x"><skipped/></testcase><testcase name="y"/></testsuite>' > "$RPCBENCH_JUNIT"
else
  printf '<testsuite>\n<testcase>' > "$RPCBENCH_JUNIT"
fi`
	// surefire: two files, an error and two passes; b has one more passing case
	surefire := `printf '<testsuite><testcase name="p"/></testsuite>' > reports/TEST-One.xml
if [ "$RPCBENCH_TARGET_NAME" = a ]; then
  printf '<testsuite><testcase name="q"><error/></testcase><testcase name="r"/></testsuite>' > reports/TEST-Two.xml
else
  printf '<testsuite><testcase name="q"><error/></testcase><testcase name="r"/><testcase name="s"/></testsuite>' > reports/TEST-Two.xml
fi`
	bench := readBench(t, dir, fmt.Sprintf(`targets:
  a: {url: "http://127.0.0.1:1/"}
  b: {url: "http://127.0.0.1:2/"}
scenarios:
  py: {command: %q, junit: out/report.xml, timeout: 1m}
  rundir: {command: %q, junit: true, timeout: 1m}
  surefire: {command: %q, junit: "reports/TEST-*.xml", timeout: 1m}
`, py, rundir, surefire))
	out, err := Run(context.Background(), bench, Options{LogDir: logDir})
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(logDir, "rundir.b.junit.xml")
	want := []struct {
		exit  int
		tests *TestCounts
		err   string
	}{
		{1, &TestCounts{Passed: 1, Failed: 1}, ""},
		{0, nil, "junit: out/report.xml: the command wrote no report there"}, // a's report is still there, unchanged
		{0, &TestCounts{Passed: 1, Skipped: 1}, ""},
		{0, nil, "junit: $RPCBENCH_JUNIT (" + cut + "):2:11: unexpected EOF"},
		{0, &TestCounts{Passed: 2, Failed: 1}, ""}, // TEST-Old.xml's failure is not counted
		{0, &TestCounts{Passed: 3, Failed: 1}, ""},
	}
	if len(out.Commands) != len(want) {
		t.Fatalf("got %d commands; want %d: %+v", len(out.Commands), len(want), out.Commands)
	}
	for i, w := range want {
		c := out.Commands[i]
		if c.ExitCode != w.exit || c.TestsErr != w.err || (c.Tests == nil) != (w.tests == nil) || c.Tests != nil && *c.Tests != *w.tests {
			t.Errorf("%s on %s: got exit %d, tests %+v, error %q; want exit %d, tests %+v, error %q",
				c.Scenario, c.Target, c.ExitCode, c.Tests, c.TestsErr, w.exit, w.tests, w.err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "junit-env.txt")); string(got) != filepath.Join(dir, "out", "report.xml")+"\n" {
		t.Errorf("RPCBENCH_JUNIT of a plan's file: got %q; want its absolute path", got)
	}
	// each target's reports kept in the run directory
	for name, want := range map[string]string{
		"py.a.junit.xml":         "t2",
		"rundir.a.junit.xml":     `name="y"`,
		"surefire.a.junit-2.xml": `name="r"/></testsuite>`,
		"surefire.b.junit-2.xml": `name="s"`,
	} {
		if got, err := os.ReadFile(filepath.Join(logDir, name)); err != nil || !strings.Contains(string(got), want) {
			t.Errorf("%s: got %q, %v; want a report with %s", name, got, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(logDir, "py.b.junit.xml")); err == nil {
		t.Errorf("py.b.junit.xml: b wrote no report, yet one was kept")
	}
	f := out.Failures()
	wantF := []string{"py on a: exit status 1", "py on b: junit: out/report.xml: the command wrote no report there",
		"rundir on b: junit: $RPCBENCH_JUNIT (" + cut + "):2:11: unexpected EOF"}
	if fmt.Sprint(f) != fmt.Sprint(wantF) {
		t.Errorf("failures: got %q; want %q", f, wantF)
	}
	var md bytes.Buffer
	if err := Render(&md, out, "markdown", report.Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| b | 0 | ") || !strings.Contains(md.String(), "| 3 | 1 | 0 |") {
		t.Errorf("markdown:\n%s", md.String())
	}
}
