package result_test

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/rpcbench/rpcbench/result"
)

// A result file is written as the run goes, an interval at a time, and read back a record at a
// time: a long run is never held in memory whole.
func ExampleNewWriter() {
	var file bytes.Buffer // an *os.File in real use
	w, err := result.NewWriter(&file, result.Header{Tool: "rpcbench", Target: "http://127.0.0.1:8080/", Endpoints: []string{"GET /"}})
	if err != nil {
		panic(err)
	}
	for i := range 3 {
		iv := result.NewInterval(1)
		iv.Start, iv.End = time.Duration(i)*time.Second, time.Duration(i+1)*time.Second
		c := iv.Endpoints[0]
		c.Sent, c.Completed, c.OK = 100, 100, 99
		c.Errors[result.Status] = 1
		c.Status[200], c.Status[503] = 99, 1
		result.RecordDuration(c.Latency, 2*time.Millisecond)
		if err := w.WriteInterval(iv); err != nil {
			panic(err)
		}
	}
	if err := w.Close(result.Trailer{Elapsed: 3 * time.Second, Intended: 300}); err != nil {
		panic(err)
	}

	r, err := result.NewReader(&file, "run.rb")
	if err != nil {
		panic(err)
	}
	for {
		iv, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		fmt.Printf("%v–%v: %d ok, p50 %dµs\n", iv.Start, iv.End, iv.Endpoints[0].OK, iv.Endpoints[0].Latency.ValueAtQuantile(50))
	}
	fmt.Println("cut short:", r.CutShort(), "intended:", r.Trailer().Intended)
	// Output:
	// 0s–1s: 99 ok, p50 2000µs
	// 1s–2s: 99 ok, p50 2000µs
	// 2s–3s: 99 ok, p50 2000µs
	// cut short: false intended: 300
}
