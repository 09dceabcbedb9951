package result

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"
)

// FuzzRead feeds arbitrary bytes to the result-file reader: it must return an error or a file,
// never panic, and a file it accepts must have consistent totals. Run it with a short
// -fuzzminimizetime (go test -fuzz FuzzRead -fuzztime 30s -fuzzminimizetime 2s ./result): the default
// minute spent shrinking each new input fills a short run, and the counts shown stay at zero.
func FuzzRead(f *testing.F) {
	rng := rand.New(rand.NewPCG(13, 14))
	var b bytes.Buffer
	w, err := NewWriter(&b, testHeader(2))
	if err != nil {
		f.Fatal(err)
	}
	w.WriteInterval(synthInterval(rng, 0, 2, 3))
	w.WriteInterval(synthInterval(rng, 1, 2, 3))
	w.Close(Trailer{Elapsed: 2 * time.Second, Intended: 12})
	valid := b.Bytes()
	f.Add(valid)
	f.Add(valid[:len(valid)-9]) // torn trailer
	f.Add([]byte(`{"kind":"header","format":"rpcbench.result","version":"2.0"}` + "\n"))
	f.Add([]byte(`{"kind":"header","format":"rpcbench.result","version":"1.0"}` + "\n" +
		`{"kind":"interval","start_ns":0,"end_ns":1000,"endpoints":[{"sent":1,"errors":{"timeout":1},"status":{"200":1},"messages":[{"class":"timeout","message":"m","count":1}],"latency":"HISTFAAAABx4nJNpmSzMwMDAxQABzFCaEUoz2X+AsQA/awKf"}]}` + "\n"))
	f.Add([]byte("\n\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read(bytes.NewReader(data), "fuzz.rb", nil)
		if err != nil {
			return
		}
		if file.Total == nil {
			t.Fatal("got a file without a Total")
		}
		var sent uint64
		for _, c := range file.Total.Endpoints {
			sent += c.Sent
		}
		if got := file.Total.Total().Sent; got != sent {
			t.Fatalf("got total sent %d; want the endpoints' sum %d", got, sent)
		}
	})
}
