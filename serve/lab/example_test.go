package lab_test

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/rpcbench/rpcbench/serve/lab"
)

// A server with a fixed service time and a 100-byte body; each answer says its arrival index, and
// Draw tells what was decided for it.
func ExampleNew() {
	s, err := lab.New(lab.Config{Latency: 2 * time.Millisecond, BodyBytes: 100})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	resp, err := http.Get(s.URL() + "/any/path")
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, len(body), resp.Header.Get("X-Lab-Seq"), s.Draw(0), s.Served())
	// Output: 200 100 0 {2ms ok} 1
}

// The true finishing time of a request follows from the stall schedule alone.
func ExampleSchedule_Finish() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// lab.Config{Stall: time.Second, Every: 10 * time.Second} started at start has this schedule.
	sched := lab.Schedule{Origin: start, First: 10 * time.Second, Every: 10 * time.Second, Length: time.Second}
	for _, arrive := range []time.Duration{5 * time.Second, 9999 * time.Millisecond, 10500 * time.Millisecond} {
		done := sched.Finish(start.Add(arrive), 2*time.Millisecond)
		fmt.Printf("arrives at +%v, done at +%v\n", arrive, done.Sub(start))
	}
	// Output:
	// arrives at +5s, done at +5.002s
	// arrives at +9.999s, done at +11.001s
	// arrives at +10.5s, done at +11.002s
}
