package plan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/result"
)

// The formats of target files, as vegeta reads them.
const (
	// TargetsHTTP is the text format: entries separated by blank lines, each a "METHOD URL" line,
	// then header lines "Name: value", then optionally "@path" naming a file that holds the body
	// (relative to the target file). Lines starting with # are comments; the comments
	// "# name: NAME" and "# weight: W" give the name and weight of the next entry.
	TargetsHTTP = "http"
	// TargetsJSON is JSON lines: one object per line, {"method": "GET", "url": "http://…",
	// "header": {"Name": ["value"]}, "body": "<base64>"}, plus rpcbench's optional "name" and
	// "weight".
	TargetsJSON = "json"
)

// Targets is a list of requests with where each was written (file and line, or flag), so that
// later problems (a bad template) can point at it. Build it with ReadTargets or by appending with
// Add; it is plain data, not safe for concurrent mutation.
type Targets struct {
	// Entries are the requests in order. Entries with the same Name belong to one endpoint.
	Entries []Endpoint
	where   []string
}

// Add appends e, written at where (e.g. "targets.txt:12" or "--endpoint get").
func (t *Targets) Add(e Endpoint, where string) {
	t.Entries = append(t.Entries, e)
	t.where = append(t.where, where)
}

// Where says where entry i was written.
func (t *Targets) Where(i int) string {
	if i < len(t.where) {
		return t.where[i]
	}
	return fmt.Sprintf("entry %d", i+1)
}

// ReadTargets reads a target file in format (TargetsHTTP, TargetsJSON, or "" to tell by the
// content: a first entry starting with '{' is JSON lines). name labels errors ("targets.txt:12:
// …"); dir is the directory that "@path" bodies are relative to. The URLs may hold templates.
func ReadTargets(name string, r io.Reader, format, dir string) (*Targets, error) {
	return readTargets(OSFiles(nil), name, r, format, dir, urlBase{})
}

// readTargets is ReadTargets reading "@path" bodies from fsys, with the URLs resolved against
// base (see urlBase).
func readTargets(fsys fs.FS, name string, r io.Reader, format, dir string, base urlBase) (*Targets, error) {
	br := bufio.NewReader(r)
	if format == "" {
		format = TargetsHTTP
		if first, _ := peekNonSpace(br); first == '{' {
			format = TargetsJSON
		}
	}
	var t *Targets
	var err error
	switch format {
	case TargetsHTTP:
		t, err = readHTTPTargets(fsys, name, br, dir, base)
	case TargetsJSON:
		t, err = readJSONTargets(name, br, base)
	default:
		return nil, fmt.Errorf("plan: %s: target format %q: want http or json", name, format)
	}
	if err != nil {
		return nil, err
	}
	if len(t.Entries) == 0 {
		return nil, fmt.Errorf("plan: %s: no targets: want at least one \"METHOD URL\" entry", name)
	}
	return t, nil
}

// httpReader is the state of reading the text format.
type httpReader struct {
	fsys      fs.FS
	name, dir string
	line      int
	t         *Targets
	cur       *Endpoint // the entry being read; nil between entries
	hasBody   bool
	pending   Endpoint // name and weight given before the next entry
	base      urlBase  // what the URLs are resolved against
}

func readHTTPTargets(fsys fs.FS, name string, r io.Reader, dir string, base urlBase) (*Targets, error) {
	h := &httpReader{fsys: fsys, name: name, dir: dir, base: base, t: &Targets{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		h.line++
		if err := h.readLine(strings.TrimSpace(sc.Text())); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("plan: %s:%d: %w", name, h.line+1, err)
	}
	h.end()
	if h.pending.Name != "" || h.pending.Weight != 0 {
		return nil, h.errorf("# name or # weight at the end: want them before the entry they name")
	}
	return h.t, nil
}

func (h *httpReader) errorf(format string, a ...any) error {
	return fmt.Errorf("plan: %s:%d: %s", h.name, h.line, fmt.Sprintf(format, a...))
}

func (h *httpReader) end() {
	if h.cur != nil {
		h.t.Entries[len(h.t.Entries)-1] = *h.cur
		h.cur = nil
	}
}

func (h *httpReader) readLine(s string) error {
	switch {
	case s == "":
		h.end()
		return nil
	case strings.HasPrefix(s, "#"):
		return h.directive(strings.TrimSpace(s[1:]))
	case strings.HasPrefix(s, "@"):
		if h.cur == nil || h.hasBody {
			return h.errorf("%q: a body file goes after a \"METHOD URL\" line and its headers, once per entry", s)
		}
		b, err := readBody(h.fsys, joinDir(h.dir, strings.TrimSpace(s[1:])))
		if err != nil {
			return h.errorf("body file: %v", err)
		}
		h.cur.Body, h.hasBody = b, true
		return nil
	}
	if h.cur != nil && !h.hasBody && isHeaderLine(s) {
		hd, err := ParseHeader(s)
		if err != nil {
			return h.errorf("%v", err)
		}
		h.cur.Header = append(h.cur.Header, hd)
		return nil
	}
	method, url, err := parseRequestLine(s, h.base)
	if err != nil {
		if h.cur != nil {
			return h.errorf("want a header \"Name: value\", \"@body-file\", a blank line or \"METHOD URL\"")
		}
		return h.errorf("%v", err)
	}
	h.end()
	e := h.pending
	e.Method, e.URL = method, url
	h.pending = Endpoint{}
	h.t.Add(e, fmt.Sprintf("%s:%d", h.name, h.line))
	h.cur, h.hasBody = &e, false
	return nil
}

// directive reads a comment, which may be "name: NAME" or "weight: W": both apply to the next
// "METHOD URL" line.
func (h *httpReader) directive(c string) error {
	key, val, ok := strings.Cut(c, ":")
	if !ok {
		return nil
	}
	e := &h.pending
	val = strings.TrimSpace(val)
	switch strings.TrimSpace(key) {
	case "name":
		if val == "" || e.Name != "" {
			return h.errorf("# name: want one non-empty name per entry, got %q", val)
		}
		e.Name = val
	case "weight":
		w, err := parseWeight(val)
		if err != nil || e.Weight != 0 {
			return h.errorf("# weight: want one number above 0 per entry, got %q", val)
		}
		e.Weight = w
	}
	return nil
}

func parseWeight(s string) (float64, error) {
	w, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || w <= 0 || math.IsInf(w, 0) || math.IsNaN(w) {
		return 0, fmt.Errorf("weight %q: want a number above 0", s)
	}
	return w, nil
}

// isHeaderLine reports whether s reads as "Name: value" (a token right before the colon).
func isHeaderLine(s string) bool {
	name, _, ok := strings.Cut(s, ":")
	return ok && isToken(name)
}

// parseRequestLine reads "METHOD URL". The URL may hold templates (and so spaces within them).
// Its errors quote no more of the line than the offending word (a URL, its secrets REDACTED): the
// line may come from a file that is no target file at all, whose content is not to be printed.
func parseRequestLine(s string, base urlBase) (method, url string, err error) {
	method, url, _ = strings.Cut(s, " ")
	url = base.join(strings.TrimSpace(url))
	switch {
	case !isToken(method):
		return "", "", errors.New("want \"METHOD URL\": the line does not start with a method such as GET or POST")
	case url == "":
		return "", "", errors.New("want \"METHOD URL\": no URL after the method")
	}
	if err := checkTemplatedURL(url); err != nil {
		word, _, _ := strings.Cut(url, " ")
		return "", "", fmt.Errorf("want \"METHOD URL\": URL %q: %v", RedactURL(word), err)
	}
	if url, err = base.retarget(url); err != nil {
		return "", "", err
	}
	return method, url, nil
}

// urlBase is what the URLs of a target file are resolved against. The zero value takes them as
// written, as vegeta does.
type urlBase struct {
	// url is the target's URL (a plan file's): the URLs that start with "/" are relative to it,
	// and the absolute ones must name its scheme and host.
	url string
	// rewrite sends the absolute URLs that name another scheme and host to url's instead.
	rewrite bool
}

// join joins a URL that starts with "/" to the base URL (see JoinURL); other URLs, and every URL
// when there is no base URL, stay as they are.
func (b urlBase) join(url string) string {
	if b.url == "" || !strings.HasPrefix(url, "/") {
		return url
	}
	return JoinURL(b.url, url)
}

// retarget checks that an absolute URL (templates only in its path and query) names the base
// URL's scheme and host, so that a run against a target goes to that target. One that names
// another is an error, or, when rewrite is set, gets the base URL's scheme, user-info and host.
func (b urlBase) retarget(url string) (string, error) {
	if b.url == "" {
		return url, nil
	}
	origin, path := splitTemplatedURL(url)
	baseOrigin, _ := splitTemplatedURL(b.url)
	if hostOf(origin) == hostOf(baseOrigin) {
		return url, nil
	}
	if !b.rewrite {
		return "", fmt.Errorf("%s names %s, not the target's %s: a run against a target goes to that target; "+
			"write the path alone (\"POST /…\"), or set rewrite_host: true to send the file's requests to each target's host",
			RedactURL(url), hostOf(origin), hostOf(baseOrigin))
	}
	return baseOrigin + path, nil
}

// hostOf returns "scheme://host" of an origin ("scheme://[user-info@]host"), in lower case.
func hostOf(origin string) string {
	scheme, host, _ := strings.Cut(origin, "://")
	if at := strings.LastIndex(host, "@"); at >= 0 {
		host = host[at+1:]
	}
	return strings.ToLower(scheme + "://" + host)
}

// checkTemplatedURL checks that a URL, templates aside, is absolute and holds no space.
func checkTemplatedURL(raw string) error {
	plain := stripTemplates(raw)
	scheme, rest, ok := strings.Cut(plain, "://")
	if !ok || scheme == "" || !isToken(scheme) {
		return fmt.Errorf("the URL needs a scheme and a host, e.g. http://127.0.0.1:8080/")
	}
	host, _, _ := strings.Cut(rest, "/")
	host, _, _ = strings.Cut(host, "?")
	if host == "" {
		return fmt.Errorf("the URL has no host, e.g. http://127.0.0.1:8080/")
	}
	if strings.ContainsAny(plain, " \t\r\n") {
		return fmt.Errorf("the URL holds a space outside {{ }}")
	}
	if marked := stripTemplatesWith(raw, "\x00"); strings.Contains(marked[:min(len(marked), len(scheme)+3+len(host))], "\x00") {
		return fmt.Errorf("templates may stand in the path and query of a URL, not in its scheme or host")
	}
	return nil
}

// stripTemplates replaces each {{…}} of s by "0", for checks of what is around templates.
func stripTemplates(s string) string { return stripTemplatesWith(s, "0") }

func stripTemplatesWith(s, repl string) string {
	if !HasTemplate(s) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			break
		}
		j := strings.Index(s[i+2:], "}}")
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteString(repl)
		s = s[i+2+j+2:]
	}
	b.WriteString(s)
	return b.String()
}

// jsonTarget is one line of the JSON format.
type jsonTarget struct {
	Name   string              `json:"name,omitempty"`
	Weight float64             `json:"weight,omitempty"`
	Method string              `json:"method"`
	URL    string              `json:"url"`
	Header map[string][]string `json:"header,omitempty"`
	Body   []byte              `json:"body,omitempty"`
}

func readJSONTargets(name string, r io.Reader, base urlBase) (*Targets, error) {
	t := &Targets{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		e, err := jsonEntry(text, base)
		if err != nil {
			return nil, fmt.Errorf("plan: %s:%d: %v", name, line, err)
		}
		t.Add(e, fmt.Sprintf("%s:%d", name, line))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("plan: %s:%d: %w", name, line+1, err)
	}
	return t, nil
}

func jsonEntry(text []byte, base urlBase) (Endpoint, error) {
	var jt jsonTarget
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&jt); err != nil {
		return Endpoint{}, fmt.Errorf(`want {"method": "GET", "url": "http://…", "header": {"Name": ["value"]}, "body": "<base64>"}: %v`, err)
	}
	if dec.More() {
		return Endpoint{}, fmt.Errorf("want one JSON object per line, found more after it")
	}
	if jt.Method == "" {
		jt.Method = "GET"
	}
	if !isToken(jt.Method) {
		return Endpoint{}, fmt.Errorf("method %q is not an HTTP method (e.g. GET, POST)", jt.Method)
	}
	jt.URL = base.join(jt.URL)
	if err := checkTemplatedURL(jt.URL); err != nil {
		return Endpoint{}, fmt.Errorf("url %q: %v", RedactURL(jt.URL), err)
	}
	var err error
	if jt.URL, err = base.retarget(jt.URL); err != nil {
		return Endpoint{}, err
	}
	if jt.Weight < 0 || math.IsNaN(jt.Weight) {
		return Endpoint{}, fmt.Errorf("weight %v: want a number above 0", jt.Weight)
	}
	e := Endpoint{Name: jt.Name, Weight: jt.Weight, Method: jt.Method, URL: jt.URL, Body: jt.Body}
	names := make([]string, 0, len(jt.Header))
	for k := range jt.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !isToken(k) {
			return Endpoint{}, fmt.Errorf("header name %q is not a valid header name", k)
		}
		for _, v := range jt.Header[k] {
			if strings.ContainsAny(v, "\r\n") {
				return Endpoint{}, fmt.Errorf("header %s: the value holds a line break", k)
			}
			e.Header = append(e.Header, result.RequestHeader{Name: k, Value: v})
		}
	}
	return e, nil
}
