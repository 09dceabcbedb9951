package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// CountChecks counts every Validate and Normalized of a Plan until the test ends. The counts are
// the whole process's: call it from a test that is not parallel, so that no other test checks
// plans meanwhile.
func CountChecks(t *testing.T) (counts func() map[string]int) {
	var mu sync.Mutex
	n := map[string]int{}
	f := func(what string) {
		mu.Lock()
		n[what]++
		if os.Getenv("TRACE_CHECKS") != "" {
			pcs := make([]uintptr, 8)
			k := runtime.Callers(3, pcs)
			fr := runtime.CallersFrames(pcs[:k])
			var b strings.Builder
			for {
				f, more := fr.Next()
				fmt.Fprintf(&b, " %s:%d", filepath.Base(f.File), f.Line)
				if !more {
					break
				}
			}
			fmt.Println(what, b.String())
		}
		mu.Unlock()
	}
	onCheck.Store(&f)
	t.Cleanup(func() { onCheck.Store(nil) })
	return func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]int{}
		for k, v := range n {
			out[k] = v
		}
		return out
	}
}
