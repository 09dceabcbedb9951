package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/rpcbench/rpcbench/serve/kv"
)

func init() {
	registerServe(serveKind{
		name:    "kv",
		summary: "key-value store on an LSM engine: PUT/GET/DELETE /v0/entity?id=K, range reads",
		examples: `  rpcbench serve kv
  rpcbench serve kv --data-dir ./kvdata --prefill-bytes 1GB
  rpcbench serve kv --prefill 1000000 --value-bytes 1024 --addr 127.0.0.1:8080
  rpcbench serve kv --no-sync --pprof`,
		flags: kvFlags,
	})
}

func kvFlags(fs *flag.FlagSet) func(ctx context.Context, se *serveEnv) error {
	var cfg kv.Config
	var prefillBytes kvSize
	fs.StringVar(&cfg.Dir, "data-dir", "", "store `directory`, created if missing and kept at exit (default: a temporary directory, removed at exit)")
	fs.Int64Var(&cfg.Prefill.Keys, "prefill", 0, "before serving, load `n` keys: \"0\", \"1\", … \"n-1\", each with a --value-bytes value")
	fs.Var(&prefillBytes, "prefill-bytes", "before serving, load this much value data (`size`, e.g. 1GB, 512MiB): keys as for --prefill")
	fs.IntVar(&cfg.Prefill.ValueBytes, "value-bytes", kv.DefaultPrefillValueBytes, "size of each prefilled value (`bytes`)")
	fs.BoolVar(&cfg.NoSync, "no-sync", false, "acknowledge writes before the log is fsynced: faster, but kill -9 or a crash can lose the last acknowledged writes")
	return func(ctx context.Context, se *serveEnv) error {
		cfg.Prefill.Bytes = int64(prefillBytes)
		if err := checkKVFlags(cfg); err != nil {
			return err
		}
		cfg.Addr = se.Addr
		cfg.Wrap = se.PprofHandler
		return runKV(ctx, se.Out, cfg, se.Pprof)
	}
}

// checkKVFlags names the flag of every bad value.
func checkKVFlags(c kv.Config) error {
	var errs []error
	if c.Prefill.Keys < 0 {
		errs = append(errs, fmt.Errorf("--prefill %d is negative; want a number of keys ≥ 0", c.Prefill.Keys))
	}
	if c.Prefill.Keys > 0 && c.Prefill.Bytes > 0 {
		errs = append(errs, errors.New("--prefill and --prefill-bytes both given; want one of them"))
	}
	if c.Prefill.ValueBytes < 1 || c.Prefill.ValueBytes > kv.MaxPrefillValueBytes {
		errs = append(errs, fmt.Errorf("--value-bytes %d is out of range; want 1 to %d", c.Prefill.ValueBytes, kv.MaxPrefillValueBytes))
	}
	if len(errs) > 0 {
		return usageError{errors.Join(errs...).Error()}
	}
	return nil
}

func runKV(ctx context.Context, out io.Writer, cfg kv.Config, pprof bool) error {
	if cfg.Dir != "" {
		fmt.Fprintf(out, "kv: store in %s (kept at exit)\n", cfg.Dir)
	}
	if cfg.NoSync {
		fmt.Fprintln(out, "kv: --no-sync: writes are acknowledged before they are on disk; kill -9 or a crash can lose the last ones")
	}
	if n := cfg.Prefill.Count(); n > 0 {
		vb := int64(cfg.Prefill.ValueBytes)
		fmt.Fprintf(out, "kv: prefilling %d keys (\"0\" … %q, %d-byte values, %s) …\n", n, kv.PrefillKey(n-1), vb, kvFormatBytes(n*vb))
		shown := int64(0)
		cfg.Prefill.Progress = func(done, total int64) {
			if tenth := done * 10 / total; tenth > shown && done < total {
				shown = tenth
				fmt.Fprintf(out, "kv: prefill %d%% (%d keys)\n", tenth*10, done)
			}
		}
	}
	s, err := kv.New(ctx, cfg)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(out, "kv: interrupted during the prefill; stopped")
			return nil
		}
		return err
	}
	if s.Temporary() {
		fmt.Fprintf(out, "kv: store in %s (temporary: removed at exit; --data-dir DIR keeps it)\n", s.Dir())
	}
	if p := s.Prefilled(); p.Keys > 0 {
		fmt.Fprintf(out, "kv: prefilled %d keys (%s of values) in %s (%s/s)\n", p.Keys, kvFormatBytes(p.ValueBytes),
			p.Took.Round(time.Millisecond), kvFormatBytes(int64(float64(p.ValueBytes)/max(p.Took.Seconds(), 1e-9))))
	}
	fmt.Fprintf(out, "kv listening on %s\n", s.URL())
	if pprof {
		fmt.Fprintf(out, "pprof on %s/debug/pprof/\n", s.URL())
	}
	return untilDone(ctx, s.Shutdown)
}

// kvSize is a flag.Value for a byte count written with an optional unit: "1GB", "512MiB", "1000".
type kvSize int64

func (s *kvSize) String() string {
	if s == nil || *s == 0 {
		return ""
	}
	return kvFormatBytes(int64(*s))
}

func (s *kvSize) Set(v string) error {
	n, err := kvParseSize(v)
	if err != nil {
		return err
	}
	*s = kvSize(n)
	return nil
}

var kvSizeUnits = map[string]float64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// kvParseSize reads a size: a number (decimals allowed) and an optional unit, B, KB, MB, GB, TB
// (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024), in any case, with or without a space.
func kvParseSize(v string) (int64, error) {
	bad := func(why string) error {
		return fmt.Errorf("%q is not a size%s; want a number and a unit, e.g. 1GB, 1.5GiB, 512MB or 1000000 (bytes); units: B, KB, MB, GB, TB (powers of 1000), KiB, MiB, GiB, TiB (powers of 1024)", v, why)
	}
	s := strings.TrimSpace(v)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(s)
	}
	num, unit := s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
	if num == "" {
		return 0, bad("")
	}
	mult, ok := kvSizeUnits[unit]
	if !ok {
		return 0, bad(fmt.Sprintf(" (unknown unit %q)", s[i:]))
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, bad("")
	}
	b := math.Round(f * mult)
	if b >= math.MaxInt64 {
		return 0, bad(" (too large)")
	}
	if f > 0 && b < 1 {
		return 0, bad(" (less than a byte)")
	}
	return int64(b), nil
}

// kvFormatBytes prints n in the largest decimal unit that keeps it ≥ 1: "1.07 GB", "512 B".
func kvFormatBytes(n int64) string {
	f := float64(n)
	for _, u := range []string{"B", "kB", "MB", "GB", "TB"} {
		if f < 1000 || u == "TB" {
			if u == "B" {
				return fmt.Sprintf("%d B", n)
			}
			return strconv.FormatFloat(f, 'f', max(0, 3-len(strconv.Itoa(int(f)))), 64) + " " + u
		}
		f /= 1000
	}
	return ""
}
