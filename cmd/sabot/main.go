// Command sabot is the operator's and technician's command line: simulate, engine, watch,
// calibrate, vision, shuffler, shoe, certify, replay, math and games. `sabot help` lists them.
//
// Each command lives in a file of its own here and adds itself to the command table with
// addCommand in that file's init function.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// command is one `sabot NAME …` command.
type command struct {
	name    string
	summary string // one line for `sabot help`
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

func addCommand(c command) {
	if _, dup := commands[c.name]; dup {
		panic("sabot: command defined twice: " + c.name)
	}
	commands[c.name] = c
}

// errUsage is returned after a usage message has been printed; the exit status is 2.
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, errUsage), errors.Is(err, flag.ErrHelp):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "sabot:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stderr)
		if len(args) == 0 {
			return errUsage
		}
		return nil
	}
	c, ok := commands[args[0]]
	if !ok {
		usage(stderr)
		return fmt.Errorf("unknown command %q", args[0])
	}
	return c.run(ctx, args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(w, "usage: sabot COMMAND [flags]\n\ncommands:")
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nsabot COMMAND -h shows a command's flags.")
}

// newFlags returns a FlagSet for a command that writes its usage to stderr and returns errors
// rather than exiting.
func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("sabot "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: sabot %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args and turns a flag error into errUsage (the message is already printed).
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}

// subcommand dispatches `sabot NAME SUB …` to one of subs.
func subcommand(ctx context.Context, name string, subs map[string]func(context.Context, []string, io.Reader, io.Writer, io.Writer) error,
	args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	keys := make([]string, 0, len(subs))
	for k := range subs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(args) == 0 {
		fmt.Fprintf(stderr, "usage: sabot %s %s …\n", name, strings.Join(keys, "|"))
		return errUsage
	}
	f, ok := subs[args[0]]
	if !ok {
		return fmt.Errorf("%s: unknown subcommand %q (known: %s)", name, args[0], strings.Join(keys, ", "))
	}
	return f(ctx, args[1:], stdin, stdout, stderr)
}
