package ethrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestQuantities(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		v    uint64
		want string
	}{{0, "0x0"}, {1, "0x1"}, {0x400, "0x400"}, {^uint64(0), "0xffffffffffffffff"}} {
		if got := string(appendQuantity(nil, tt.v)); got != tt.want {
			t.Errorf("appendQuantity(%d): got %s; want %s", tt.v, got, tt.want)
		}
	}
	for _, tt := range []struct {
		in   []byte
		want string
	}{{nil, "0x0"}, {[]byte{0, 0}, "0x0"}, {[]byte{0, 1}, "0x1"}, {[]byte{0, 0x10, 0}, "0x1000"}, {[]byte{0xab, 0x0c}, "0xab0c"}} {
		if got := string(appendQuantityBytes(nil, tt.in)); got != tt.want {
			t.Errorf("appendQuantityBytes(%x): got %s; want %s", tt.in, got, tt.want)
		}
	}
	if got := string(appendData(nil, []byte{0, 0xab})); got != "0x00ab" {
		t.Errorf("appendData: got %s; want 0x00ab", got)
	}
}

func TestParseQuantity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0x0", 0, true},
		{"0x1b4", 0x1b4, true},
		{"0X1B4", 0x1b4, true},
		{"0xffffffffffffffff", ^uint64(0), true},
		{"0x", 0, false},                  // no digits
		{"0x00", 0, false},                // leading zero
		{"0x01", 0, false},                // leading zero
		{"1b4", 0, false},                 // no prefix
		{"0x1g", 0, false},                // not hex
		{"0x10000000000000000", 0, false}, // over 64 bits
		{"-0x1", 0, false},                // sign
		{"0x 1", 0, false},                // space
		{"", 0, false},                    // empty
		{"0x+1", 0, false},                // sign after the prefix
	}
	for _, tt := range tests {
		got, err := parseQuantity(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseQuantity(%q): got %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestParseData(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []byte
		ok   bool
	}{
		{"0x", []byte{}, true},
		{"0x00ff", []byte{0, 0xff}, true},
		{"0xABcd", []byte{0xab, 0xcd}, true},
		{"0x0", nil, false},  // odd
		{"00ff", nil, false}, // no prefix
		{"0xzz", nil, false}, // not hex
	}
	for _, tt := range tests {
		got, err := parseData(tt.in)
		if (err == nil) != tt.ok || !bytes.Equal(got, tt.want) {
			t.Errorf("parseData(%q): got %x, %v; want %x, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	if _, err := parseFixed("0x1234", 20); err == nil || !strings.Contains(err.Error(), "want 20 bytes") {
		t.Errorf("parseFixed of 2 bytes as 20: got %v; want a length error", err)
	}
}

func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{"0x0", "0x1b4", "0x01", "0x", "0xffffffffffffffff", "0x10000000000000000", "12"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseQuantity(s)
		if err != nil {
			return
		}
		// What parses prints back the same, up to the case of the digits and of the x.
		if got := string(appendQuantity(nil, v)); got != strings.ToLower(s) {
			t.Errorf("parseQuantity(%q) = %d, which prints as %s", s, v, got)
		}
		if _, err := strconv.ParseUint(s[2:], 16, 64); err != nil {
			t.Errorf("parseQuantity(%q) accepted what ParseUint refuses: %v", s, err)
		}
	})
}

// FuzzHandle sends any body through the JSON-RPC layer: the answer is empty (notifications only)
// or valid JSON, an object or a non-empty array, never a panic.
func FuzzHandle(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","method":"net_version"}]`,
		`{"jsonrpc":"2.0","id":"a","method":"eth_getBlockByNumber","params":["0x2",true]}`,
		`{"jsonrpc":"2.0","id":2,"method":"eth_call","params":[{"to":"0x0000000000000000000000000000000000000001","data":"0x70a08231"},"latest"]}`,
		`{"jsonrpc":"2.0","id":3,"method":"debug_storageRangeAt","params":["0x00",0,"0x00","0x",1]}`,
		`[]`, `{`, `1`, `[1,2]`, `{"id":{}}`, `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":{"a":1}}`,
	} {
		f.Add([]byte(s))
	}
	ctx := context.Background()
	s, err := New(ctx, Config{Blocks: 8, MaxBatch: 20, MaxStorageRange: 50})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	f.Fuzz(func(t *testing.T, body []byte) {
		out := s.handle(body, nil)
		if len(out) == 0 {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("answer to %q is not JSON: %q", body, out)
		}
		switch out[0] {
		case '{':
			var a answer
			if err := json.Unmarshal(out, &a); err != nil || a.Version != "2.0" || (a.Result == nil) == (a.Error == nil) {
				t.Errorf("answer to %q: %q; want jsonrpc 2.0 and one of result and error", body, out)
			}
		case '[':
			var as []json.RawMessage
			if json.Unmarshal(out, &as) != nil || len(as) == 0 {
				t.Errorf("batch answer to %q: %q; want a non-empty array", body, out)
			}
		default:
			t.Errorf("answer to %q: %q; want an object or an array", body, out)
		}
	})
}
