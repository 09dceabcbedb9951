package diff

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/rpcbench/rpcbench/transport"
)

// ReadFixture reads one fixture in the .io format of Ethereum's execution-apis tests: lines
// ">> REQUEST" (a JSON-RPC request) each followed by a line "<< ANSWER" (the expected answer),
// "//" comment lines, and blank lines. A comment starting "speconly" marks the file's answers as
// judged by shape only. name labels the requests (and errors: "x.io:3: …"); firstID numbers them.
func ReadFixture(name string, r io.Reader, firstID int) ([]Request, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var reqs []Request
	var open *Request
	shape := false
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		where := fmt.Sprintf("%s:%d", name, line)
		switch {
		case text == "":
		case strings.HasPrefix(text, "//"):
			if strings.HasPrefix(strings.ToLower(strings.TrimSpace(text[2:])), "speconly") {
				shape = true
			}
		case strings.HasPrefix(text, ">>"):
			if open != nil {
				return nil, fmt.Errorf("diff: %s: a second \">>\" request before the \"<<\" answer of the request of %s", where, open.Where)
			}
			body := []byte(strings.TrimSpace(text[2:]))
			if !json.Valid(body) {
				return nil, fmt.Errorf("diff: %s: want \">> {JSON-RPC request}\", got %.60q: not JSON", where, text)
			}
			label := LabelOf(body)
			if label == "" {
				return nil, fmt.Errorf("diff: %s: want \">> {JSON-RPC request}\" with a method, got %.60q", where, text)
			}
			reqs = append(reqs, Request{ID: firstID + len(reqs), Label: label, Where: where, Method: "POST",
				Header: jsonHeader, Body: body})
			open = &reqs[len(reqs)-1]
		case strings.HasPrefix(text, "<<"):
			if open == nil {
				return nil, fmt.Errorf("diff: %s: an \"<<\" answer with no \">>\" request before it", where)
			}
			ans := []byte(strings.TrimSpace(text[2:]))
			if !json.Valid(ans) {
				return nil, fmt.Errorf("diff: %s: want \"<< {JSON-RPC answer}\", got %.60q: not JSON", where, text)
			}
			open.Expected, open = ans, nil
		default:
			return nil, fmt.Errorf("diff: %s: want \">> request\", \"<< answer\" or \"// comment\", got %.60q", where, text)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("diff: %s: %w", name, err)
	}
	if open != nil {
		return nil, fmt.Errorf("diff: %s: the \">>\" request has no \"<<\" answer after it", open.Where)
	}
	if len(reqs) == 0 {
		return nil, fmt.Errorf("diff: %s: no \">> request\" line", name)
	}
	for i := range reqs {
		reqs[i].ShapeOnly = shape
	}
	return reqs, nil
}

// ReadFixtures reads every .io file under root in fsys (a file, or a directory walked in
// lexical order), numbering the requests from 1. The names in Where are root-relative paths
// joined to prefix.
func ReadFixtures(fsys fs.FS, root, prefix string) ([]Request, error) {
	var reqs []Request
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".io") && p != root {
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		got, err := ReadFixture(path.Join(prefix, p), bytes.NewReader(b), len(reqs)+1)
		if err != nil {
			return err
		}
		reqs = append(reqs, got...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(reqs) == 0 {
		return nil, fmt.Errorf("diff: %s: no .io fixture file", path.Join(prefix, root))
	}
	return reqs, nil
}

var jsonHeader = []transport.Header{{Name: "Content-Type", Value: "application/json"}}
