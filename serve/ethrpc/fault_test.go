package ethrpc

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// Noise: every answer with a result carries "noise", 0x and 16 hex digits, drawn anew each time;
// the rest of the answer is as without it, and an error answer has none.
func TestNoise(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Blocks: 10, Noise: true})
	plain := start(t, Config{Blocks: 10})
	hex := regexp.MustCompile(`^0x[0-9a-f]{16}$`)
	seen := map[string]bool{}
	for i := range 4 {
		_, got := post(t, s, `{"jsonrpc":"2.0","id":7,"method":"eth_getBlockByNumber","params":["0x3",false]}`)
		_, want := post(t, plain, `{"jsonrpc":"2.0","id":7,"method":"eth_getBlockByNumber","params":["0x3",false]}`)
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(got), &m); err != nil {
			t.Fatalf("answer %d is not JSON: %v: %s", i, err, got)
		}
		var noise string
		if err := json.Unmarshal(m["noise"], &noise); err != nil || !hex.MatchString(noise) {
			t.Fatalf("answer %d: noise %s; want 0x and 16 hex digits", i, m["noise"])
		}
		seen[noise] = true
		if stripped := strings.Replace(got, `,"noise":"`+noise+`"`, "", 1); stripped != want {
			t.Errorf("answer %d without its noise:\n%s\nwant\n%s", i, stripped, want)
		}
	}
	if len(seen) < 2 {
		t.Errorf("4 answers had %d noise value(s); want them drawn anew", len(seen))
	}
	_, got := post(t, s, `{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["oops",false]}`)
	if strings.Contains(got, "noise") {
		t.Errorf("an error answer carries noise: %s", got)
	}
}

// InjectShare 0.25: of 8 answers made one after another, the 4th and the 8th carry
// "injected":true, and in a batch the count goes on call by call.
func TestInjectShare(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Blocks: 10, InjectShare: 0.25})
	var got []int
	for i := 1; i <= 8; i++ {
		_, a := post(t, s, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`)
		if strings.Contains(a, `"injected":true`) {
			if want := `{"jsonrpc":"2.0","id":1,"injected":true,"result":"0x539"}`; a != want {
				t.Errorf("answer %d: %s; want %s", i, a, want)
			}
			got = append(got, i)
		}
	}
	if len(got) != 2 || got[0] != 4 || got[1] != 8 || s.Injected() != 2 {
		t.Errorf("injected into answers %v, Injected() = %d; want answers 4 and 8, 2", got, s.Injected())
	}
	_, a := post(t, s, `[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","id":2,"method":"eth_chainId"},{"jsonrpc":"2.0","id":3,"method":"eth_chainId"},{"jsonrpc":"2.0","id":4,"method":"eth_chainId"}]`)
	if n := strings.Count(a, `"injected":true`); n != 1 || !strings.Contains(a, `{"jsonrpc":"2.0","id":4,"injected":true,"result":"0x539"}`) || s.Injected() != 3 {
		t.Errorf("batch of 4 (answers 9 to 12): %s, Injected() = %d; want only the 12th injected, 3 in all", a, s.Injected())
	}
}

func TestInjectShareRange(t *testing.T) {
	t.Parallel()
	for _, share := range []float64{-0.1, 1.5} {
		if _, err := New(context.Background(), Config{InjectShare: share, Blocks: 1}); err == nil || !strings.Contains(err.Error(), "InjectShare") {
			t.Errorf("InjectShare %v: got %v; want an error naming InjectShare", share, err)
		}
	}
}
