// Package cli is the rpcbench command line: one flag.FlagSet per subcommand, typed flag values
// (rates, durations, headers), signal handling and exit codes. It only parses and wires; the work is
// done by the library packages. Exit codes are decided here and nowhere else.
package cli
