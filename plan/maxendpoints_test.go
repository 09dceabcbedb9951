package plan

import (
	"fmt"
	"strings"
	"testing"
)

// A plan of 1,000 named endpoints (the per-method figures of a large JSON-RPC corpus) is valid; one
// more is refused with the bound in the message.
func TestValidateEndpointCount(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n    int
		want string // "" for valid
	}{
		{1000, ""},
		{1001, "1001 endpoints: at most 1000"},
	} {
		var p Plan
		for i := range tc.n {
			p.Endpoints = append(p.Endpoints, Endpoint{Name: fmt.Sprintf("m%d", i), URL: "http://127.0.0.1:1/"})
		}
		err := p.Normalized().Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%d endpoints: %v; want valid", tc.n, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%d endpoints: got %v; want %q", tc.n, err, tc.want)
		}
	}
}
