package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
)

// Exit codes, decided here and nowhere else.
const (
	ExitOK          = 0 // the run completed (and met its objectives)
	ExitSLO         = 1 // the run completed but failed an objective
	ExitUsage       = 2 // bad flags or bad input
	ExitInterrupted = 3 // stopped by a signal; what was measured was still reported
	ExitCannotStart = 4 // the run could not start (e.g. the target could not be set up)
	ExitInvalid     = 5 // --require-valid, and the run's validity verdict found it invalid
)

// Env is what a command sees of the process: its streams and, when it runs from Main, the
// channel a second interrupt closes. Main makes it; the zero value has no streams.
type Env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// cut is closed by a second SIGINT or SIGTERM: a run then cuts its requests in flight at once.
	cut <-chan struct{}
}

// env is Env, as this package's commands spell it.
type env = Env

// Stdout is the command's standard output: reports, help, manifests.
func (e *Env) Stdout() io.Writer { return e.stdout }

// Stderr is the command's standard error: progress and problems.
func (e *Env) Stderr() io.Writer { return e.stderr }

// Command is a subcommand of another package, given to Main: rpcbench-k8s gives its k8s command.
type Command struct {
	Name    string // the word that chooses it: rpcbench NAME
	Summary string // its line in rpcbench help
	// Run runs it with the arguments after its name, and returns the exit code (Exit*). ctx is
	// cancelled by the first SIGINT or SIGTERM.
	Run func(ctx context.Context, e *Env, args []string) int
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) int
}

// usageError is bad input from the user: exit code 2.
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

var commands []command

func register(c command) { commands = append(commands, c) }

// Main runs the rpcbench command line with args (without the program name) and returns the exit
// code. The extra commands come beside the built-in ones; one of the same name replaces it.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, extra ...Command) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	cs := withExtra(extra)
	if len(args) == 0 {
		printHelp(stderr, cs)
		return ExitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		// help on a command is that command's --help (help serve kv: the kind's); help on help (or
		// --help --help) is this help
		if len(args) > 1 && !isHelpWord(args[1]) {
			return Main(append(append([]string(nil), args[1:]...), "--help"), stdin, stdout, stderr, extra...)
		}
		printHelp(stdout, cs)
		return ExitOK
	case "version", "--version":
		fmt.Fprintln(stdout, "rpcbench", Version())
		return ExitOK
	}
	for _, c := range cs {
		if c.name == name {
			ctx, cut, stop := signalContext(stderr, stoppingMessage(name))
			defer stop()
			e.cut = cut
			return c.run(ctx, e, args[1:])
		}
	}
	fmt.Fprintf(stderr, "rpcbench: unknown command %q\n\n", name)
	printHelp(stderr, cs)
	return ExitUsage
}

// withExtra returns the registered commands with extra added, replacing those of the same name.
func withExtra(extra []Command) []command {
	cs := slices.Clone(commands)
	for _, x := range extra {
		c := command{name: x.Name, summary: x.Summary, run: x.Run}
		if i := slices.IndexFunc(cs, func(c command) bool { return c.name == x.Name }); i >= 0 {
			cs[i] = c
		} else {
			cs = append(cs, c)
		}
	}
	return cs
}

// isHelpWord says whether arg asks for help rather than naming a command.
func isHelpWord(arg string) bool {
	switch arg {
	case "help", "-h", "-help", "--help":
		return true
	}
	return false
}

// signalContext returns a context cancelled by the first SIGINT or SIGTERM (a run stops and gives
// the requests in flight its grace period), saying so on stderr, and a channel closed by the second
// (a run cuts them at once and still reports). A third signal is left to the default handler
// again, so a stuck process can still be killed.
func signalContext(stderr io.Writer, stopping string) (context.Context, <-chan struct{}, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	cut := make(chan struct{})
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	quit := make(chan struct{})
	go func() {
		select {
		case <-ch:
			fmt.Fprintln(stderr, "\n"+stopping)
			cancel()
		case <-quit:
			return
		}
		select {
		case <-ch:
			signal.Stop(ch)
			close(cut)
		case <-quit:
		}
	}()
	var once sync.Once
	return ctx, cut, func() { once.Do(func() { signal.Stop(ch); close(quit); cancel() }) }
}

// stoppingMessage is what command name says on the first Ctrl-C: the commands that load a target
// (and a diff, which runs as a load) wait --grace for the requests in flight and cut them on a
// second Ctrl-C; the others (a service, a crawl) just stop.
func stoppingMessage(name string) string {
	switch name {
	case "run", "capacity", "ghz", "bench", "quickstart", "diff":
		return "rpcbench " + name + ": stopping, waiting for the requests in flight (their grace period); interrupt again to cut them at once"
	}
	return "rpcbench " + name + ": stopping"
}

func printHelp(w io.Writer, all []command) {
	fmt.Fprintf(w, "rpcbench %s — benchmark RPC services (HTTP/1.1, HTTP/2, HTTP/3, JSON-RPC over HTTP and WebSocket, gRPC) free of coordinated omission\n\n", Version())
	fmt.Fprintln(w, "Usage: rpcbench COMMAND [flags] [args]")
	fmt.Fprintln(w, "\nCommands:")
	cs := slices.Clone(all)
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	for _, c := range cs {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "  help         help on a command: rpcbench help run")
	fmt.Fprintln(w, "  version      print the version")
	fmt.Fprintf(w, "\n%s\n", exitCodesHelp)
	fmt.Fprintln(w, "\nStart with: rpcbench quickstart")
}

// newFlagSet returns a FlagSet whose usage prints the summary, the examples and the flags.
func newFlagSet(e *env, name, synopsis, examples string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		w := e.stdout
		fmt.Fprintf(w, "Usage: rpcbench %s\n\n", synopsis)
		if examples != "" {
			fmt.Fprintf(w, "Examples:\n%s\n", strings.TrimRight(examples, "\n"))
		}
		fmt.Fprintln(w, "\nFlags:")
		printFlags(w, fs, refusedFlags[name])
		if name == "run" || name == "report" {
			fmt.Fprintf(w, "\n%s\n", exitCodesHelp)
		}
	}
	return fs
}

// refusedFlags holds, per command, the flags it shares with run but refuses (their names, with
// what to use instead): its help leaves them out.
var refusedFlags = map[string]map[string]string{}

// printFlags prints fs's flags as flag.PrintDefaults does, but spelt as users type them: two dashes
// for a long name (--rate), one for a single letter (-X); the flags in refused are left out.
func printFlags(w io.Writer, fs *flag.FlagSet, refused map[string]string) {
	var b strings.Builder
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	skip := false // within a refused flag's lines (its name, then its indented usage)
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "  -"); ok {
			name, _, _ := strings.Cut(strings.TrimRight(rest, "\n"), " ")
			_, skip = refused[name]
			if len(name) > 1 {
				line = "  --" + rest
			}
		}
		if !skip {
			io.WriteString(w, line)
		}
	}
}

// parseFlags parses args into fs for a command that takes no positional arguments. It returns
// done=true with the exit code when the command must stop: after --help (0), on a bad flag or a
// stray argument (2, with the error printed).
func parseFlags(e *env, fs *flag.FlagSet, args []string) (code int, done bool) {
	pos, code, done := parseArgs(e, fs, args)
	if !done && len(pos) > 0 {
		fmt.Fprintf(e.stderr, "rpcbench %s: unexpected argument %q\n(see: rpcbench %s --help)\n", fs.Name(), pos[0], fs.Name())
		return ExitUsage, true
	}
	return code, done
}

// parseArgs is parseFlags for commands that take positional arguments among their flags.
func parseArgs(e *env, fs *flag.FlagSet, args []string) (pos []string, code int, done bool) {
	// The flag package calls Usage on every parse error too; print the help only when asked.
	usage := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = usage }()
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage()
			return nil, ExitOK, true
		}
		fmt.Fprintf(e.stderr, "rpcbench %s: %s\n(see: rpcbench %s --help)\n", fs.Name(), flagError(fs, err), fs.Name())
		return nil, ExitUsage, true
	}
	return pos, 0, false
}

// fail prints err and returns its exit code: 2 for usage errors, else the given code.
func fail(e *env, cmd string, err error, code int) int {
	var u usageError
	if errors.As(err, &u) {
		fmt.Fprintf(e.stderr, "rpcbench %s: %v\n", cmd, err)
		return ExitUsage
	}
	fmt.Fprintf(e.stderr, "rpcbench %s: %v\n", cmd, err)
	return code
}
