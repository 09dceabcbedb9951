// Command replaythroughput measures what a replay costs the generator, network aside: it scans a
// recording and takes every record of it in order, as the engine's pacer and senders do (At, then
// Fill), without waiting for due times, and prints the lines per CPU-second of each pass and the
// process's peak RSS. scripts/replay-throughput.sh runs it on a generated log.
package main

import (
	"flag"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/rpcbench/rpcbench/replay"
	"github.com/rpcbench/rpcbench/result"
)

func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func main() {
	format := flag.String("input-format", "", "the file's format (default: told by its content)")
	window := flag.Int("window", replay.DefaultWindow, "records read ahead")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: replaythroughput [--input-format F] [--window N] FILE")
		os.Exit(2)
	}
	o := replay.Options{Files: flag.Args(), Format: *format, Base: "http://127.0.0.1:9", Window: *window}
	c0, w0 := cpu(), time.Now()
	tl, err := replay.Scan(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c1, w1 := cpu(), time.Now()
	tl.Start()
	var r result.Request
	n := tl.Records()
	for i := range n {
		if _, ok := tl.At(i); !ok {
			fmt.Fprintf(os.Stderr, "record %d missing: %v\n", i, tl.Err())
			os.Exit(1)
		}
		if err := tl.Fill(i, &r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	tl.Close()
	c2, w2 := cpu(), time.Now()
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	info := tl.Info()
	lines := n + info.Skips.Count
	fmt.Printf("records %d (lines skipped %d)\n", n, info.Skips.Count)
	fmt.Printf("scan (parse, sort, filter, name): %.2fs CPU, %.2fs wall: %.0f lines per CPU-second\n",
		(c1 - c0).Seconds(), w1.Sub(w0).Seconds(), float64(lines)/(c1-c0).Seconds())
	fmt.Printf("replay pass (parse again, schedule, build each request): %.2fs CPU, %.2fs wall: %.0f lines per CPU-second\n",
		(c2 - c1).Seconds(), w2.Sub(w1).Seconds(), float64(lines)/(c2-c1).Seconds())
	fmt.Printf("both passes: %.0f lines per CPU-second of the whole replay\n", float64(lines)/(c2-c0).Seconds())
	fmt.Printf("peak RSS %.1f MiB\n", float64(ru.Maxrss)/1024)
}
