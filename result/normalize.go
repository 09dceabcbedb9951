package result

import (
	"strings"
)

// Normalize shortens an error message to its kind, so that the list of distinct errors stays short:
// IP addresses with ports, host:port pairs, hexadecimal ids and runs of digits become placeholders.
//
//	"dial tcp 127.0.0.1:8080: connect: connection refused" → "dial tcp ADDR: connect: connection refused"
//	"read tcp 127.0.0.1:51234->127.0.0.1:80: i/o timeout" → "read tcp ADDR->ADDR: i/o timeout"
func Normalize(msg string) string {
	var b strings.Builder
	b.Grow(len(msg))
	i := 0
	for i < len(msg) {
		c := msg[i]
		switch {
		case c == '[': // [::1]:8080 and other bracketed IPv6 literals
			if j := strings.IndexByte(msg[i:], ']'); j > 0 && isAddrChars(msg[i+1:i+j]) {
				i += j + 1
				i = skipPort(msg, i)
				b.WriteString("ADDR")
				continue
			}
		case isDigit(c) || isHex(c) && i+1 < len(msg) && isHex(msg[i+1]):
			if i > 0 && isWordChar(msg[i-1]) {
				break // part of a word such as "tls13" or "http2"
			}
			j := i
			for j < len(msg) && (isHex(msg[j]) || msg[j] == '.' || msg[j] == ':' || msg[j] == '-') {
				j++
			}
			tok := strings.TrimRight(msg[i:j], ".:-")
			j = i + len(tok)
			if j < len(msg) && isWordChar(msg[j]) {
				break // a word such as "deadbeefs" or "add"
			}
			switch {
			case strings.Count(tok, ".") == 3 || strings.Count(tok, ":") >= 2 && !isAllDigits(tok):
				b.WriteString("ADDR")
			case hasDigit(tok) && (len(tok) >= 2 || isAllDigits(tok)):
				b.WriteString("N")
			default:
				b.WriteString(tok)
			}
			i = j
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

func skipPort(s string, i int) int {
	if i < len(s) && s[i] == ':' {
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j > i+1 {
			return j
		}
	}
	return i
}

func isAddrChars(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) && s[i] != ':' && s[i] != '.' && s[i] != '%' {
			return false
		}
	}
	return len(s) > 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
func isWordChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c)
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			return true
		}
	}
	return false
}

func isAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return len(s) > 0
}
