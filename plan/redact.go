package plan

import (
	"slices"
	"strconv"
	"strings"

	"github.com/rpcbench/rpcbench/result"
)

// Redacted is what a secret is replaced with in what rpcbench writes out.
const Redacted = "REDACTED"

// Secret reports whether a header or query parameter of this name carries a secret: Authorization,
// Proxy-Authorization, Cookie, Set-Cookie, and any name that says key, token, secret, password or
// auth (api_key, X-Auth-Token, …), in any case.
func Secret(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "cookie", "set-cookie":
		return true
	}
	for _, w := range []string{"auth", "key", "token", "secret", "passw"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// RedactURL returns u with its user-info and the values of its secret query parameters replaced
// by Redacted. It works on text, so a URL that does not parse, or holds templates, is redacted too.
func RedactURL(u string) string { return ReplaceURLSecrets(u, redact) }

// redact is the replacement of every secret in what rpcbench writes out.
func redact(string) string { return Redacted }

// ReplaceURLSecrets returns u with its user-info and the values of its secret query parameters
// each replaced by what with returns for it; RedactURL replaces them by Redacted.
func ReplaceURLSecrets(u string, with func(secret string) string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		rest := u[i+3:]
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
			u = u[:i+3] + with(rest[:at]) + rest[at:]
		}
	}
	return replaceQuerySecrets(u, with)
}

// redactQuery replaces the values of the secret parameters of the query in s (after its first "?").
func redactQuery(s string) string { return replaceQuerySecrets(s, redact) }

func replaceQuerySecrets(s string, with func(string) string) string {
	q := strings.IndexByte(s, '?')
	if q < 0 {
		return s
	}
	end := len(s)
	if h := strings.IndexByte(s[q:], '#'); h >= 0 {
		end = q + h
	}
	pairs := strings.Split(s[q+1:end], "&")
	changed := false
	for k, p := range pairs {
		if name, value, ok := strings.Cut(p, "="); ok && Secret(name) {
			pairs[k], changed = name+"="+with(value), true
		}
	}
	if !changed {
		return s
	}
	return s[:q+1] + strings.Join(pairs, "&") + s[end:]
}

// RedactHeaders returns h with the values of its secret headers replaced by Redacted; h itself is
// not changed.
func RedactHeaders(h []result.RequestHeader) []result.RequestHeader {
	return replaceHeaderSecrets(h, redact)
}

func replaceHeaderSecrets(h []result.RequestHeader, with func(string) string) []result.RequestHeader {
	var out []result.RequestHeader
	for k, x := range h {
		if !Secret(x.Name) {
			continue
		}
		if out == nil {
			out = append([]result.RequestHeader(nil), h...)
		}
		out[k].Value = with(x.Value)
	}
	if out == nil {
		return h
	}
	return out
}

// RedactArg returns a command-line argument with the secrets a URL or a "Name: value" header in
// it carries replaced by Redacted.
func RedactArg(a string) string { return ReplaceArgSecrets(a, redact) }

// ReplaceArgSecrets returns a command-line argument with each secret a URL or a "Name: value"
// header in it carries replaced by what with returns for it; RedactArg replaces them by Redacted.
func ReplaceArgSecrets(a string, with func(secret string) string) string {
	// -X=VALUE, --flag=VALUE: VALUE as the flag's own argument would be, whole when the flag's name
	// is a secret's (--token=…); a boolean (--show-secrets=true) carries none
	if flag, value, ok := strings.Cut(a, "="); ok && strings.HasPrefix(flag, "-") && !strings.ContainsAny(flag, ": ") {
		if _, err := strconv.ParseBool(value); err != nil && Secret(strings.TrimLeft(flag, "-")) {
			return flag + "=" + with(value)
		}
		return flag + "=" + ReplaceArgSecrets(value, with)
	}
	// a secret header first: its value may hold a URL ("Cookie: s=…; next=https://…"), secret whole
	if name, value, ok := strings.Cut(a, ":"); ok && isToken(strings.TrimSpace(name)) && Secret(strings.TrimSpace(name)) {
		return name + ": " + with(strings.TrimSpace(value))
	}
	if strings.Contains(a, "://") {
		return ReplaceURLSecrets(a, with)
	}
	return a
}

// RedactArgs returns a copy of a command line with the secrets of each argument (RedactArg)
// replaced by Redacted.
func RedactArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = RedactArg(a)
	}
	return out
}

// ShownCommand returns a command (a target's, a scenario's) as rpcbench writes it out: its
// arguments joined by blanks, each with its secrets (RedactArg) REDACTED unless show; a shell
// command line (shell: one string for /bin/sh -c) word by word, words split as the shell splits
// them (quotes kept), so that each URL and each quoted secret header in it is.
func ShownCommand(cmd []string, shell, show bool) string {
	switch {
	case show:
		return strings.Join(cmd, " ")
	case shell && len(cmd) == 1:
		return redactShell(cmd[0])
	}
	return strings.Join(RedactArgs(cmd), " ")
}

// redactShell returns a shell command line with the secrets of each of its words (RedactArg)
// REDACTED, its blanks and quoting kept.
func redactShell(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] == ' ' || line[i] == '\t' || line[i] == '\n' {
			b.WriteByte(line[i])
			i++
			continue
		}
		end, word := shellWordAt(line, i)
		b.WriteString(redactShellWord(line[i:end], word))
		i = end
	}
	return b.String()
}

// shellWordAt returns where the shell word starting at line[i] ends and its value, its quotes and
// backslashes removed.
func shellWordAt(line string, i int) (end int, word string) {
	var w strings.Builder
	var quote byte
	for ; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == 0 && (c == ' ' || c == '\t' || c == '\n'):
			return i, w.String()
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		case quote != 0 && c == quote:
			quote = 0
		case c == '\\' && quote != '\'' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
		default:
			w.WriteByte(c)
		}
	}
	return i, w.String()
}

// redactShellWord returns the shell word raw (its value word) with its secrets REDACTED: the
// text before its first quote kept, the rest quoted as it was.
func redactShellWord(raw, word string) string {
	r := RedactArg(word)
	if r == word {
		return raw
	}
	q := strings.IndexAny(raw, `'"`)
	if q < 0 {
		if !strings.ContainsAny(r, " \t") {
			return r
		}
		q = 0
		raw = "'"
	}
	prefix, mark := raw[:q], raw[q:q+1]
	if strings.ContainsAny(prefix, "\\") || !strings.HasPrefix(r, prefix) || strings.ContainsAny(r[len(prefix):], `'"\$`+"`") {
		return "'" + strings.ReplaceAll(r, "'", `'\''`) + "'"
	}
	return prefix + mark + r[len(prefix):] + mark
}

// Shown returns p as rpcbench writes it out: p.Redacted(), or p itself when the user asked for
// the secrets (show: --show-secrets). Every command that writes a plan's requests goes through it.
func (p Plan) Shown(show bool) Plan {
	if show {
		return p
	}
	return p.Redacted()
}

// ShownURL is u as rpcbench writes it out: RedactURL(u), or u itself when show.
func ShownURL(u string, show bool) string {
	if show {
		return u
	}
	return RedactURL(u)
}

// Redacted returns a copy of p fit to write out: the values of secret headers and query
// parameters and any user-info of its URLs replaced by Redacted (endpoint names, made from URLs,
// too). The run itself uses p; reports, result files and live lines show p.Redacted(), unless the
// user asks for the secrets (--show-secrets).
func (p Plan) Redacted() Plan { return p.ReplaceSecrets(redact) }

// ReplaceSecrets returns a copy of p with each secret Redacted hides replaced by what with returns
// for it (with sees every secret the plan sends).
func (p Plan) ReplaceSecrets(with func(secret string) string) Plan {
	p.Endpoints = append([]Endpoint(nil), p.Endpoints...)
	for i := range p.Endpoints {
		e := &p.Endpoints[i]
		e.URL = ReplaceURLSecrets(e.URL, with)
		e.Name = replaceQuerySecrets(e.Name, with)
		e.Header = replaceHeaderSecrets(e.Header, with)
	}
	p.Traffic.Header = replaceHeaderSecrets(p.Traffic.Header, with)
	p.Traffic.Base = ReplaceURLSecrets(p.Traffic.Base, with)
	if p.Diff != nil {
		p.Diff = slices.Clone(p.Diff)
		for i, u := range p.Diff {
			p.Diff[i] = ReplaceURLSecrets(u, with)
		}
	}
	return p
}
