package replay

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/result"
)

// The layouts of the combined and common access logs, in nginx's log_format syntax. Apache's
// combined ("%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-agent}i\"") and common logs
// write the same fields the same way.
const (
	combinedLayout = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"`
	commonLayout   = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent`
)

// layout is a log_format compiled: literals between variables.
type layout struct {
	src   string
	parts []part
	hasT  bool // the layout has a time variable
	hasRq bool // the layout has the request, or its method and URI
}

type part struct {
	lit string // a literal, or
	v   string // a variable's name (without $)
}

// timeVars are the variables that give a request's time.
var timeVars = map[string]bool{"time_local": true, "time_iso8601": true, "msec": true}

// compileLayout reads an nginx log_format string: literal text and $variables (or ${variable}).
func compileLayout(src string) (*layout, error) {
	l := &layout{src: src}
	lit := strings.Builder{}
	for i := 0; i < len(src); {
		c := src[i]
		if c != '$' {
			lit.WriteByte(c)
			i++
			continue
		}
		var name string
		if strings.HasPrefix(src[i+1:], "{") {
			end := strings.IndexByte(src[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("log_format %q: ${ without }", src)
			}
			name, i = src[i+2:i+end], i+end+1
		} else {
			j := i + 1
			for j < len(src) && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			name, i = src[i+1:j], j
		}
		if name == "" {
			return nil, fmt.Errorf("log_format %q: a $ without a variable name", src)
		}
		if lit.Len() > 0 {
			l.parts = append(l.parts, part{lit: lit.String()})
			lit.Reset()
		}
		if n := len(l.parts); n > 0 && l.parts[n-1].v != "" {
			return nil, fmt.Errorf("log_format %q: $%s follows $%s with nothing between: where one ends is not known", src, name, l.parts[n-1].v)
		}
		l.parts = append(l.parts, part{v: name})
		l.hasT = l.hasT || timeVars[name]
		l.hasRq = l.hasRq || name == "request" || name == "request_uri" || name == "uri"
	}
	if lit.Len() > 0 {
		l.parts = append(l.parts, part{lit: lit.String()})
	}
	if !l.hasRq {
		return nil, fmt.Errorf("log_format %q: no $request, $request_uri or $uri: the log does not say which request was made", src)
	}
	return l, nil
}

// match splits line by the layout and calls set for each variable, in order.
func (l *layout) match(line string, set func(name, value string) error) error {
	rest := line
	for k, p := range l.parts {
		if p.lit != "" {
			if !strings.HasPrefix(rest, p.lit) {
				return fmt.Errorf("want %q at column %d of the line (log_format %q)", p.lit, len(line)-len(rest)+1, l.src)
			}
			rest = rest[len(p.lit):]
			continue
		}
		var value string
		if k+1 == len(l.parts) {
			value, rest = rest, ""
		} else {
			next := l.parts[k+1].lit
			end := strings.Index(rest, next)
			if next[0] == '"' {
				end = quotedEnd(rest, next)
			}
			if end < 0 {
				return fmt.Errorf("$%s: want %q after it (log_format %q)", p.v, next, l.src)
			}
			value, rest = rest[:end], rest[end:]
		}
		if err := set(p.v, value); err != nil {
			return err
		}
	}
	if rest != "" {
		return fmt.Errorf("%d bytes after the end of the layout (log_format %q)", len(rest), l.src)
	}
	return nil
}

// quotedEnd returns where a quoted value ends: the first next not escaped by a backslash (Apache
// writes \" inside quotes; nginx writes \x22).
func quotedEnd(s, next string) int {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\':
			i++
		case strings.HasPrefix(s[i:], next):
			return i
		}
	}
	return -1
}

// accessReader reads an access log by one of its layouts (the first that matches a line).
type accessReader struct {
	*lines
	layouts []*layout
}

func newAccessReader(name string, r io.Reader, layouts ...string) (*accessReader, error) {
	a := &accessReader{lines: newLines(name, r)}
	for _, src := range layouts {
		l, err := compileLayout(src)
		if err != nil {
			return nil, err
		}
		a.layouts = append(a.layouts, l)
	}
	return a, nil
}

// Next implements Reader.
func (a *accessReader) Next() (Record, error) {
	b, err := a.next()
	if err != nil {
		return Record{}, err
	}
	line := string(b)
	var first error
	for _, l := range a.layouts {
		rec, err := l.record(line)
		if err == nil {
			rec.Line = a.line
			return rec, nil
		}
		if first == nil {
			first = err
		}
	}
	return Record{}, a.errorf("%v", first)
}

// record reads one line into a record.
func (l *layout) record(line string) (Record, error) {
	var rec Record
	var uri, args string
	err := l.match(line, func(name, v string) error {
		if v == "-" && name != "request" {
			return nil
		}
		var err error
		switch {
		case name == "time_local":
			rec.Time, err = time.Parse("02/Jan/2006:15:04:05 -0700", v)
			if err != nil {
				err = fmt.Errorf("$time_local %q: want 02/Jan/2006:15:04:05 -0700", clip(v))
			}
		case name == "time_iso8601" || name == "msec":
			rec.Time, err = parseTime(v)
		case name == "request":
			rec.Method, rec.Target, err = requestLine(v)
		case name == "request_method":
			rec.Method = v
		case name == "request_uri" || name == "uri":
			uri = v
		case name == "args" || name == "query_string":
			args = v
		case name == "status":
			rec.Status, err = strconv.Atoi(v)
			if err != nil || rec.Status < 100 || rec.Status > 999 {
				err = fmt.Errorf("$status %q: want a status such as 200", clip(v))
			}
		case name == "request_body":
			rec.Body = []byte(unescapeNginx(v))
		case strings.HasPrefix(name, "http_") && name != "http_host":
			h, v := headerName(strings.TrimPrefix(name, "http_")), unescapeNginx(v)
			if strings.ContainsAny(v, "\r\n") {
				return fmt.Errorf("$%s: the value holds a line break", name)
			}
			rec.Header = append(rec.Header, result.RequestHeader{Name: h, Value: v})
		}
		return err
	})
	if err != nil {
		return Record{}, err
	}
	if rec.Target == "" && uri != "" {
		rec.Target = uri
		if args != "" && !strings.Contains(uri, "?") {
			rec.Target += "?" + args
		}
	}
	if rec.Method == "" {
		rec.Method = "GET"
	}
	if !isToken(rec.Method) {
		return Record{}, fmt.Errorf("method %q is not an HTTP method", clip(rec.Method))
	}
	if !strings.HasPrefix(rec.Target, "/") && !strings.Contains(rec.Target, "://") {
		return Record{}, fmt.Errorf("request target %q: want a path such as /index.html", clip(rec.Target))
	}
	if !l.hasT {
		return rec, nil
	}
	if rec.Time.IsZero() {
		return Record{}, errors.New("no time: the line's time field is \"-\"")
	}
	return rec, nil
}

// requestLine reads "METHOD TARGET PROTOCOL" ($request, Apache's %r).
func requestLine(v string) (method, target string, err error) {
	f := strings.Fields(unescapeNginx(v))
	if len(f) < 2 || len(f) > 3 || !isToken(f[0]) {
		return "", "", fmt.Errorf("$request %q: want \"METHOD /path HTTP/1.1\"", clip(v))
	}
	return f[0], f[1], nil
}

// headerName turns an nginx variable's header part into the header's name: user_agent → User-Agent.
func headerName(s string) string {
	words := strings.Split(s, "_")
	for i, w := range words {
		if w != "" {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, "-")
}

// unescapeNginx undoes the \xHH escapes that nginx writes for quotes, backslashes and bytes that
// are not printable, and Apache's \" and \\.
func unescapeNginx(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && s[i+1] == 'x' {
			if n, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
			b.WriteByte(s[i+1])
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
