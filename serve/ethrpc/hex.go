package ethrpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// appendQuantity appends v as an Ethereum quantity: "0x" and lowercase hex without leading zeros
// ("0x0" for zero).
func appendQuantity(b []byte, v uint64) []byte {
	b = append(b, '0', 'x')
	return strconv.AppendUint(b, v, 16)
}

// appendQuantityBytes appends the big-endian unsigned number in v as a quantity.
func appendQuantityBytes(b []byte, v []byte) []byte {
	for len(v) > 0 && v[0] == 0 {
		v = v[1:]
	}
	b = append(b, '0', 'x')
	if len(v) == 0 {
		return append(b, '0')
	}
	if v[0] < 0x10 {
		b = append(b, hexDigits[v[0]])
		v = v[1:]
	}
	for _, c := range v {
		b = append(b, hexDigits[c>>4], hexDigits[c&15])
	}
	return b
}

// appendData appends v as Ethereum data: "0x" and two lowercase hex digits per byte.
func appendData(b []byte, v []byte) []byte {
	b = append(b, '0', 'x')
	for _, c := range v {
		b = append(b, hexDigits[c>>4], hexDigits[c&15])
	}
	return b
}

// appendDataString appends appendData(v) as a JSON string.
func appendDataString(b []byte, v []byte) []byte {
	b = append(b, '"')
	return append(appendData(b, v), '"')
}

// appendQuantityString appends appendQuantity(v) as a JSON string.
func appendQuantityString(b []byte, v uint64) []byte {
	b = append(b, '"')
	return append(appendQuantity(b, v), '"')
}

var (
	errNotHex      = errors.New("want a 0x-prefixed hex string")
	errLeadingZero = errors.New("hex number with leading zero digits")
)

// parseQuantity reads a quantity as Ethereum clients write it: "0x", then 1 to 16 hex digits,
// the first not 0 unless it is the only one.
func parseQuantity(s string) (uint64, error) {
	if len(s) < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return 0, errNotHex
	}
	d := s[2:]
	if len(d) > 1 && d[0] == '0' {
		return 0, errLeadingZero
	}
	if len(d) > 16 {
		return 0, errors.New("hex number over 64 bits")
	}
	v, err := strconv.ParseUint(d, 16, 64)
	if err != nil {
		return 0, errNotHex
	}
	return v, nil
}

// parseData reads "0x" and an even number of hex digits.
func parseData(s string) ([]byte, error) {
	if len(s) < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return nil, errNotHex
	}
	d := s[2:]
	if len(d)%2 != 0 {
		return nil, errors.New("hex string of odd length")
	}
	out := make([]byte, len(d)/2)
	for i := range out {
		hi, ok1 := unhex(d[2*i])
		lo, ok2 := unhex(d[2*i+1])
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("invalid hex digit in %q", clip(s))
		}
		out[i] = hi<<4 | lo
	}
	return out, nil
}

// parseFixed reads data of exactly n bytes (a hash: 32, an address: 20).
func parseFixed(s string, n int) ([]byte, error) {
	b, err := parseData(s)
	if err != nil {
		return nil, err
	}
	if len(b) != n {
		return nil, fmt.Errorf("want %d bytes (%d hex digits), got %d", n, 2*n, len(b))
	}
	return b, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) <= 80 {
		return s
	}
	cut := 77
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}
