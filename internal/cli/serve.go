package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// serveKind is one built-in service of `rpcbench serve KIND`. Each lives in a file serve_KIND.go
// that calls registerServe from init.
type serveKind struct {
	name    string
	summary string
	// examples are extra lines for --help, each a full command.
	examples string
	// flags defines the kind's own flags on fs and returns the function that runs the service until
	// ctx is done. run must print the service's address(es) to out once it listens, and return nil
	// after a clean shutdown; an error it returns is reported (usageError for bad flags: exit 2).
	flags func(fs *flag.FlagSet) (run func(ctx context.Context, s *serveEnv) error)
}

// serveEnv is what every kind gets besides its own flags.
type serveEnv struct {
	Addr  string    // --addr: where to listen (default 127.0.0.1:0)
	Out   io.Writer // where to print the address and notes
	Err   io.Writer // where to print warnings
	Pprof bool      // --pprof: serve net/http/pprof (see PprofHandler)
	// Metrics is --metrics: serve Prometheus metrics at /metrics (see metricsHandler).
	Metrics bool
	// Collectors are the kind's own series, served with --metrics beside the others.
	Collectors []prometheus.Collector
}

// shutdownGrace bounds how long a service waits for requests in flight after Ctrl-C.
const shutdownGrace = 5 * time.Second

// untilDone waits for ctx (Ctrl-C, SIGTERM), then shuts the service down, giving requests in flight
// shutdownGrace to finish; running past the grace is not an error.
func untilDone(ctx context.Context, shutdown func(context.Context) error) error {
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// PprofHandler wraps h so that /debug/pprof/ is served beside it when --pprof was given, and
// /metrics when --metrics was.
func (s *serveEnv) PprofHandler(h http.Handler) http.Handler {
	h = s.metricsHandler(h)
	if !s.Pprof {
		return h
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("/", h)
	return mux
}

// StartPprof serves net/http/pprof on its own loopback port when --pprof was given (for kinds that
// are not HTTP services), prints where, and returns a stop function.
func (s *serveEnv) StartPprof() (stop func(), err error) {
	if !s.Pprof {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: s.PprofHandler(http.NotFoundHandler())}
	go srv.Serve(ln) //nolint:errcheck // ends with Close
	fmt.Fprintf(s.Out, "pprof on http://%s/debug/pprof/\n", ln.Addr())
	return func() { srv.Close() }, nil
}

var serveKinds = map[string]serveKind{}

func registerServe(k serveKind) { serveKinds[k.name] = k }

func init() {
	register(command{name: "serve", summary: "start a built-in target service (items, kv, jsonrpc, mesh, lab)", run: runServe})
}

func serveKindNames() []string {
	var names []string
	for n := range serveKinds {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func runServe(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			printServeHelp(e.stdout)
			return ExitOK
		}
		fmt.Fprintf(e.stderr, "rpcbench serve: name a kind of service: %s\n", strings.Join(serveKindNames(), ", "))
		return ExitUsage
	}
	k, ok := serveKinds[args[0]]
	if !ok {
		fmt.Fprintf(e.stderr, "rpcbench serve: unknown kind %q; want one of %s\n", args[0], strings.Join(serveKindNames(), ", "))
		return ExitUsage
	}
	fs := newFlagSet(e, "serve "+k.name, "serve "+k.name+" [flags]\n\n"+k.summary, k.examples)
	se := &serveEnv{Out: e.stdout, Err: e.stderr}
	fs.StringVar(&se.Addr, "addr", "127.0.0.1:0", "`host:port` to listen on (port 0: any free port)")
	fs.BoolVar(&se.Pprof, "pprof", false, "also serve net/http/pprof, to profile the service under load")
	fs.BoolVar(&se.Metrics, "metrics", false, "also serve Prometheus metrics at /metrics (requests by status code, in flight, Go runtime, process), for run --monitor-metrics")
	run := k.flags(fs)
	pos, code, done := parseArgs(e, fs, args[1:])
	if done {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(e.stderr, "rpcbench serve %s: unexpected argument %q\n", k.name, pos[0])
		return ExitUsage
	}
	if err := checkAddr(se.Addr); err != nil {
		return fail(e, "serve "+k.name, usagef("--addr %q: %v", se.Addr, err), ExitUsage)
	}
	warnExposed(e.stderr, k.name, se.Addr)
	if err := run(ctx, se); err != nil {
		return fail(e, "serve "+k.name, err, ExitCannotStart)
	}
	return ExitOK
}

// checkAddr checks that addr is host:port with a port from 0 to 65535.
func checkAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("want host:port, e.g. 127.0.0.1:8080 (port 0: any free port)")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port %q: want a number from 0 to 65535", port)
	}
	return nil
}

// warnExposed prints on w the warning of exposedWarning for `serve kind --addr addr`, if any.
func warnExposed(w io.Writer, kind, addr string) {
	if msg := exposedWarning(addr); msg != "" {
		fmt.Fprintf(w, "rpcbench serve %s: warning: %s\n", kind, msg)
	}
}

// exposedWarning says why --addr addr (host:port, checked) may let other machines in, or returns
// "" when its host is loopback (an address of 127.0.0.0/8 or ::1, or "localhost"). A host name
// other than localhost is not looked up: where it leads is not known here.
func exposedWarning(addr string) string { return exposedWarningOf("--addr", addr) }

// exposedWarningOf is exposedWarning for the address of flag (--addr, --h3-addr).
func exposedWarningOf(flag, addr string) string {
	host, port, _ := net.SplitHostPort(addr)
	if strings.EqualFold(host, "localhost") {
		return ""
	}
	const open = "the built-in services have no authentication, so "
	local := " Give " + flag + " " + net.JoinHostPort("127.0.0.1", port) + " to keep them to this machine."
	ip, err := netip.ParseAddr(host)
	switch {
	case host == "" || err == nil && ip.IsUnspecified():
		return flag + " " + addr + " listens on every interface of this machine: " + open + "anyone who can reach its port can use them." + local
	case err != nil:
		return flag + " " + addr + " names a host, not a loopback address: " + open + "if " + host + " leads to an address other machines reach, they can use them." + local
	case !ip.IsLoopback():
		return flag + " " + addr + " is not a loopback address: " + open + "anyone who can reach " + ip.String() + " can use them." + local
	}
	return ""
}

func printServeHelp(w io.Writer) {
	fmt.Fprintln(w, "Usage: rpcbench serve KIND [flags]")
	fmt.Fprintln(w, "\nKinds:")
	for _, n := range serveKindNames() {
		fmt.Fprintf(w, "  %-10s %s\n", n, serveKinds[n].summary)
	}
	fmt.Fprintln(w, "\nEach listens on 127.0.0.1 (--addr to change), prints its address and stops cleanly on Ctrl-C.")
	fmt.Fprintln(w, "Help on a kind: rpcbench serve KIND --help")
}
