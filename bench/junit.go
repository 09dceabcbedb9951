package bench

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/plan"
)

// CountJUnit counts the test cases of a JUnit XML report: a <testsuites> or a <testsuite>, suites
// nested to any depth. A <testcase> with a <failure> or an <error> failed, one with <skipped>
// was skipped, any other passed; the suites' own tests= and failures= attributes are not read, so
// nothing counts twice. An error gives the line and column where the report went wrong.
func CountJUnit(r io.Reader) (*TestCounts, error) {
	d := xml.NewDecoder(r)
	var c TestCounts
	depth, root := 0, false
	inCase := -1   // the depth of the open <testcase>; -1 outside one
	var state byte // of the open test case: 0 passed, 's' skipped, 'f' failed
	for {
		tok, err := d.Token()
		if err == io.EOF && root {
			return &c, nil
		}
		line, col := d.InputPos()
		var se *xml.SyntaxError
		switch {
		case err == io.EOF:
			return nil, fmt.Errorf("%d:%d: no <testsuites> or <testsuite> element: want a JUnit XML report", line, col)
		case errors.As(err, &se):
			return nil, fmt.Errorf("%d:%d: %s", line, col, se.Msg)
		case err != nil:
			return nil, fmt.Errorf("%d:%d: %v", line, col, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := t.Name.Local
			if depth == 0 && name != "testsuites" && name != "testsuite" {
				return nil, fmt.Errorf("%d:%d: <%s>: want <testsuites> or <testsuite> at the top of a JUnit XML report", line, col, name)
			}
			root = true
			depth++
			switch {
			case name == "testcase" && inCase == -1:
				inCase, state = depth, 0
			case depth == inCase+1 && (name == "failure" || name == "error"):
				state = 'f'
			case depth == inCase+1 && name == "skipped" && state == 0:
				state = 's'
			}
		case xml.EndElement:
			if depth == inCase {
				switch state {
				case 'f':
					c.Failed++
				case 's':
					c.Skipped++
				default:
					c.Passed++
				}
				inCase = -1
			}
			depth--
		}
	}
}

// junitFiles is where a command scenario's JUnit XML reports are against one target, and the
// files found there before the command started, so that only what it wrote is counted.
type junitFiles struct {
	dir, pattern string // the plan's directory; the report's file or glob, absolute or from dir
	keep         string // where the reports read are copied, "" for nowhere: NAME.junit.xml, NAME.junit-N.xml
	tmp          string // a temporary directory of rpcbench's, removed when done
	runDir       bool   // the file is rpcbench's choice, given in EnvJUnit
	before       map[string]fileStamp
}

type fileStamp struct {
	mod  time.Time
	size int64
}

// newJUnitFiles says where command scenario s writes its JUnit XML reports in the run named base
// (SCENARIO.TARGET, or SCENARIO.TARGET.ROUND) — nil when it writes none — notes the files already
// there, and returns the environment the command gets: EnvJUnit when the reports are one file.
// With s.JUnitRunDir the file is BASE.junit.xml in logDir (in a temporary directory without one);
// otherwise the reports read are copied there under that name, so that no run's is lost to the
// next's.
func newJUnitFiles(s plan.Scenario, base, dir, logDir string) (*junitFiles, []string, error) {
	if s.JUnit == "" && !s.JUnitRunDir {
		return nil, nil, nil
	}
	j := &junitFiles{dir: dir, pattern: s.JUnit, runDir: s.JUnitRunDir, before: map[string]fileStamp{}}
	name := base + ".junit"
	switch {
	case s.JUnitRunDir && logDir == "":
		tmp, err := os.MkdirTemp("", "rpcbench-junit-")
		if err != nil {
			return nil, nil, err
		}
		j.tmp, j.pattern = tmp, filepath.Join(tmp, name+".xml")
	case s.JUnitRunDir:
		j.pattern = filepath.Join(logDir, name+".xml") // logDir is not relative to dir
	case logDir != "":
		j.keep = filepath.Join(logDir, name)
		fallthrough
	default:
		if !filepath.IsAbs(j.pattern) {
			j.pattern = filepath.Join(dir, j.pattern)
		}
	}
	matches, _ := filepath.Glob(j.pattern) // the pattern was checked when the plan was read
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil {
			j.before[m] = fileStamp{fi.ModTime(), fi.Size()}
		}
	}
	var env []string
	if !strings.ContainsAny(j.pattern, `*?[\`) {
		abs, err := filepath.Abs(j.pattern)
		if err != nil {
			return nil, nil, err
		}
		env = []string{plan.EnvJUnit + "=" + abs}
	}
	return j, env, nil
}

// count counts the test cases of the reports the command wrote (new, or changed since
// newJUnitFiles), each kept a copy of when asked. None is an error when the command exited on its
// own; a report that is not JUnit XML is one that names the file.
func (j *junitFiles) count(exited bool) (*TestCounts, error) {
	if j.tmp != "" {
		defer os.RemoveAll(j.tmp)
	}
	matches, _ := filepath.Glob(j.pattern)
	var wrote []string
	for _, m := range matches {
		fi, err := os.Stat(m)
		if err != nil || fi.IsDir() {
			continue
		}
		if was, ok := j.before[m]; ok && was == (fileStamp{fi.ModTime(), fi.Size()}) {
			continue // there before the command, unchanged: an earlier run's
		}
		wrote = append(wrote, m)
	}
	if len(wrote) == 0 {
		if !exited {
			return nil, nil
		}
		return nil, fmt.Errorf("junit: %s: the command wrote no report there", j.show(j.pattern))
	}
	var sum TestCounts
	for i, m := range wrote {
		b, err := os.ReadFile(m)
		if err != nil {
			return nil, fmt.Errorf("junit: %w", err)
		}
		c, err := CountJUnit(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("junit: %s:%w", j.show(m), err)
		}
		sum.Passed, sum.Failed, sum.Skipped = sum.Passed+c.Passed, sum.Failed+c.Failed, sum.Skipped+c.Skipped
		if j.keep != "" {
			name := j.keep + ".xml"
			if len(wrote) > 1 {
				name = fmt.Sprintf("%s-%d.xml", j.keep, i+1)
			}
			if err := os.WriteFile(name, b, 0o644); err != nil {
				return nil, fmt.Errorf("junit: keeping a copy: %w", err)
			}
		}
	}
	return &sum, nil
}

// show names a file as the plan does: relative to its directory when inside it.
func (j *junitFiles) show(path string) string {
	if j.runDir {
		return "$" + plan.EnvJUnit + " (" + path + ")"
	}
	if rel, err := filepath.Rel(j.dir, path); err == nil && j.dir != "" && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}
