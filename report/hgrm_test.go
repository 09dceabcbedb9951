package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rpcbench/rpcbench/summary"
)

func TestHGRMGolden(t *testing.T) {
	t.Parallel()
	s := load(t, fixtures[0])
	var b bytes.Buffer
	if err := HGRM(&b, s); err != nil {
		t.Fatal(err)
	}
	golden(t, "one.hgrm", b.Bytes())
	// The footer's total count is the run's request count.
	if want := fmt.Sprintf("Total count    = %12d", s.Requests.Sent); !strings.Contains(b.String(), want) {
		t.Errorf("got:\n%s\nwant a footer with %q", b.String(), want)
	}
	if err := HGRM(&b, &summary.Summary{}); err == nil {
		t.Errorf("got no error for a run without a histogram; want one")
	}
}
