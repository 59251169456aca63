package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sabot-tables/sabot/driver/shuffler"
	"github.com/sabot-tables/sabot/driver/shuffler/shufflertest"
	"github.com/sabot-tables/sabot/shoe/card"
)

func init() {
	addCommand(command{name: "shuffler", summary: "shuffler status|selftest|shuffle --port P: talk to the card shuffler", run: runShuffler})
}

func runShuffler(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return subcommand(ctx, "shuffler", map[string]func(context.Context, []string, io.Reader, io.Writer, io.Writer) error{
		"status":   shufflerStatus,
		"selftest": shufflerSelfTest,
		"shuffle":  shufflerShuffle,
	}, args, stdin, stdout, stderr)
}

// shufflerFlags are the flags every shuffler subcommand takes.
type shufflerFlags struct {
	port    string
	baud    int
	record  string
	timeout time.Duration
	sim     bool
	simLoad int
}

func (f *shufflerFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.port, "port", "", "serial port of the shuffler (e.g. /dev/ttyUSB0)")
	fs.IntVar(&f.baud, "baud", 38400, "line speed, 8N1")
	fs.StringVar(&f.record, "record", "", "write a transcript of every byte on the line to this file")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "give up after this long")
	fs.BoolVar(&f.sim, "sim", false, "talk to a simulated shuffler on a pseudo-terminal instead of --port")
	fs.IntVar(&f.simLoad, "sim-decks", 8, "with --sim: complete decks in the simulated input tray")
}

// open opens the shuffler the flags name, and returns a function that closes everything.
func (f *shufflerFlags) open(stderr io.Writer) (*shuffler.Dev, func(), error) {
	var closers []func()
	done := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	port := f.port
	if f.sim {
		if port != "" {
			return nil, nil, fmt.Errorf("shuffler: --sim and --port %s: give one", port)
		}
		sim, err := shufflertest.NewSim(shufflertest.Opts{Serial: "SIM-0001"})
		if err != nil {
			return nil, nil, err
		}
		closers = append(closers, func() { sim.Close() })
		for range f.simLoad {
			sim.Insert(card.Deck())
		}
		port = sim.Port()
		fmt.Fprintf(stderr, "simulated shuffler on %s with %d decks in the tray\n", port, f.simLoad)
	}
	if port == "" {
		done()
		return nil, nil, fmt.Errorf("shuffler: --port is required (or --sim)")
	}
	opts := shuffler.Opts{Baud: f.baud}
	if f.record != "" {
		rf, err := os.Create(f.record)
		if err != nil {
			done()
			return nil, nil, fmt.Errorf("shuffler: %w", err)
		}
		closers = append(closers, func() { rf.Close() })
		opts.Record = rf
	}
	dev, err := shuffler.Open(port, opts)
	if err != nil {
		done()
		return nil, nil, err
	}
	closers = append(closers, func() { dev.Close() })
	return dev, done, nil
}

func shufflerStatus(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	var f shufflerFlags
	fs := newFlags("shuffler status", "--port P [--record FILE]", stderr)
	f.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	dev, done, err := f.open(stderr)
	if err != nil {
		return err
	}
	defer done()
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	st, err := dev.Status(ctx)
	if err != nil {
		return err
	}
	writeStatus(stdout, dev, st)
	return nil
}

func writeStatus(w io.Writer, dev *shuffler.Dev, st shuffler.Status) {
	yes := func(b bool, y, n string) string {
		if b {
			return y
		}
		return n
	}
	fmt.Fprintln(w, dev)
	fmt.Fprintf(w, "state     %s\n", st.State)
	fmt.Fprintf(w, "door      %s\n", yes(st.DoorOpen, "OPEN", "closed"))
	fmt.Fprintf(w, "jammed    %s\n", yes(st.Jammed, "YES", "no"))
	fmt.Fprintf(w, "input     %d cards\n", st.InputCards)
	fmt.Fprintf(w, "output    %d cards\n", st.OutputCards)
	fmt.Fprintf(w, "fault     %s\n", st.Fault)
	fmt.Fprintf(w, "shuffles  %d\n", st.Shuffles)
	fmt.Fprintf(w, "serial    %s\n", st.Serial)
	fmt.Fprintf(w, "firmware  %s\n", st.Firmware)
}

// errSelfTest makes `sabot shuffler selftest` exit 1 when the device reports a failure.
var errSelfTest = errors.New("shuffler: self-test failed")

func shufflerSelfTest(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	var f shufflerFlags
	fs := newFlags("shuffler selftest", "--port P [--record FILE]", stderr)
	f.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	dev, done, err := f.open(stderr)
	if err != nil {
		return err
	}
	defer done()
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	res, err := dev.SelfTest(ctx)
	if err != nil {
		return err
	}
	if !res.Passed {
		fmt.Fprintf(stdout, "self-test FAILED: %s: %s\n", res.Code, res.Text)
		return errSelfTest
	}
	fmt.Fprintf(stdout, "self-test passed: %s\n", res.Text)
	return nil
}

func shufflerShuffle(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	var f shufflerFlags
	fs := newFlags("shuffler shuffle", "--port P --decks N [--mode batch|deck|hands] [--hands H --cards C] [--verify]", stderr)
	f.register(fs)
	decks := fs.Int("decks", 8, "decks in the load, 1…8")
	mode := fs.String("mode", "batch", "batch (a whole shoe), deck (one deck per round) or hands (hand forming)")
	hands := fs.Int("hands", 0, "with --mode hands: hands to form")
	perHand := fs.Int("cards", 0, "with --mode hands: cards in each hand")
	verify := fs.Bool("verify", true, "read the load first and refuse an incomplete one (RULES.md §1)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	p := shuffler.Program{Decks: *decks, Hands: *hands, CardsPerHand: *perHand}
	switch *mode {
	case "batch":
		p.Mode = shuffler.Batch
	case "deck":
		p.Mode = shuffler.DeckPerRound
	case "hands":
		p.Mode = shuffler.HandForming
	default:
		fmt.Fprintf(stderr, "sabot shuffler shuffle: --mode %q: batch, deck or hands\n", *mode)
		return errUsage
	}
	if err := p.Validate(); err != nil {
		return err
	}
	dev, done, err := f.open(stderr)
	if err != nil {
		return err
	}
	defer done()
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	if *verify {
		got, err := dev.LoadVerify(ctx)
		if err != nil {
			return err
		}
		if d := card.Diff(card.Decks(*decks), got); len(d) > 0 {
			return fmt.Errorf("shuffler: the load is not %d complete decks: %s", *decks, card.DescribeDiff(d))
		}
		fmt.Fprintf(stdout, "load verified: %d complete decks (%d cards)\n", *decks, got.Total())
	}
	// The order is never asked for, so never printed: it is a secret (RULES.md §1 "Shuffle").
	rep, err := dev.Shuffle(ctx, p)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s (%s)\n", rep, p.Mode)
	return nil
}
