package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sabot-tables/sabot/driver/shuffler"
	"github.com/sabot-tables/sabot/driver/shuffler/shufflertest"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/shoe/certify"
	"github.com/sabot-tables/sabot/shoe/shuffle"
)

func init() {
	addCommand(command{name: "certify", summary: "certify shuffle: the randomness tests a gaming lab applies, as a report", run: runCertify})
}

func runCertify(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return subcommand(ctx, "certify", map[string]func(context.Context, []string, io.Reader, io.Writer, io.Writer) error{
		"shuffle": certifyShuffle,
	}, args, stdin, stdout, stderr)
}

func certifyShuffle(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("certify shuffle", "--n N [--decks D] [--source host|sim-shuffler] [--orders FILE] [--json]", stderr)
	n := fs.Int("n", 10000, "number of shuffles to test")
	decks := fs.Int("decks", 1, "decks per order (1 to 8)")
	source := fs.String("source", "host", "host: the daemon's cryptographic shuffle; sim-shuffler: the simulated shuffler's reported orders")
	orders := fs.String("orders", "", "read orders from FILE instead (one per line, e.g. recorded from a shuffler; - for stdin)")
	conf := fs.Float64("confidence", 0.99, "confidence level of each test")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *conf <= 0.5 || *conf >= 1 {
		return fmt.Errorf("certify: --confidence %.3g: between 0.5 and 1", *conf)
	}
	c, err := certify.NewCollector(*decks)
	if err != nil {
		return err
	}
	var label string
	progress := func(i int) {
		if i%max(1, *n/10) == 0 && i > 0 {
			fmt.Fprintf(stderr, "certify: %d of %d orders\n", i, *n)
		}
	}
	switch {
	case *orders != "":
		r := stdin
		if *orders != "-" {
			f, err := os.Open(*orders)
			if err != nil {
				return fmt.Errorf("certify: %w", err)
			}
			defer f.Close()
			r = f
		}
		got, err := certify.ReadOrders(r, *decks, c.Add)
		if err != nil {
			return fmt.Errorf("%w (in %s)", err, *orders)
		}
		label = fmt.Sprintf("%d orders read from %s", got, *orders)
	case *source == "host":
		if *n < 2 {
			return fmt.Errorf("certify: --n must be at least 2")
		}
		s := shuffle.NewSource()
		x := make([]card.Card, 0, 52**decks)
		for range *decks {
			x = append(x, card.Deck()...)
		}
		for i := range *n {
			shuffle.Permute(s, x)
			if err := c.Add(x); err != nil {
				return err
			}
			progress(i)
		}
		label = "host shuffle: crypto/rand, Fisher–Yates with unbiased bounded draws (shoe/shuffle)"
	case *source == "sim-shuffler":
		if err := simShufflerOrders(ctx, *n, *decks, c, progress); err != nil {
			return err
		}
		label = "the simulated shuffler's reported orders, over its serial protocol"
	default:
		return fmt.Errorf("certify: unknown --source %q (host, sim-shuffler)", *source)
	}
	rep := c.Report(label, *conf, time.Now())
	if *asJSON {
		b, _ := json.MarshalIndent(rep, "", "  ")
		fmt.Fprintf(stdout, "%s\n", b)
	} else if err := rep.WriteText(stdout); err != nil {
		return err
	}
	if !rep.Pass {
		return fmt.Errorf("certify: the shuffle FAILED at %.1f%% confidence", 100**conf)
	}
	return nil
}

// simShufflerOrders drives the simulated shuffler over its pseudo-terminal n times: load and
// verify, shuffle with the order reported, take the pack out and put it back.
func simShufflerOrders(ctx context.Context, n, decks int, c *certify.Collector, progress func(int)) error {
	sim, err := shufflertest.NewSim(shufflertest.Opts{Seed: uint64(time.Now().UnixNano())})
	if err != nil {
		return err
	}
	defer sim.Close()
	dev, err := shuffler.Open(sim.Port(), shuffler.Opts{})
	if err != nil {
		return err
	}
	defer dev.Close()
	for range decks {
		sim.Insert(card.Deck())
	}
	for i := range n {
		if _, err := dev.LoadVerify(ctx); err != nil {
			return err
		}
		rep, err := dev.Shuffle(ctx, shuffler.Program{Decks: decks, Mode: shuffler.Batch, ReportOrder: true})
		if err != nil {
			return err
		}
		if rep.Order == nil {
			return fmt.Errorf("certify: the shuffler does not report its orders")
		}
		if err := c.Add(rep.Order); err != nil {
			return err
		}
		sim.Insert(sim.TakeOutput())
		progress(i)
	}
	return nil
}
