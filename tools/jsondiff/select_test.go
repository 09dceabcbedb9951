package jsondiff

import (
	"strings"
	"testing"
)

func TestSelect(t *testing.T) {
	doc := `{"result":{"number":"0x2","transactions":[{"hash":"0xa","to":null},{"hash":"0xb"},{"to":"0xc"}],
	"n":{"z":1,"a":[2,3]}}}`
	for _, tt := range []struct{ pattern, want string }{
		{"result.number", `"0x2"`},
		{"$", strings.TrimSpace(doc)},
		{"result.transactions[*].hash", `"0xa" "0xb"`},
		{"result.transactions[1]", `{"hash":"0xb"}`},
		{"result.transactions[*].to", `null "0xc"`},
		{"result.transactions[3].hash", ``},
		{"result.n.*", `1 [2,3]`}, // document order, not sorted
		{"result.n[*]", ``},       // an object is not an array
		{"result.number.x", ``},
		{"result.n.a[*]", `2 3`},
	} {
		got, err := MustPattern(tt.pattern).Select([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", tt.pattern, err)
		}
		var s []string
		for _, v := range got {
			s = append(s, string(v))
		}
		if strings.Join(s, " ") != tt.want {
			t.Errorf("%s: got %q; want %q", tt.pattern, strings.Join(s, " "), tt.want)
		}
	}
	if _, err := MustPattern("a").Select([]byte(`{"a":`)); err == nil {
		t.Errorf("malformed document: got no error")
	}
}
