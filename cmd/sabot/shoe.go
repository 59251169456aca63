package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"time"

	"github.com/sabot-tables/sabot/driver/readershoe"
	"github.com/sabot-tables/sabot/driver/readershoe/readershoetest"
	"github.com/sabot-tables/sabot/shoe/card"
)

func init() {
	addCommand(command{name: "shoe", summary: "shoe watch --port P: print what the card-reading shoe sends", run: runShoe})
}

func runShoe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return subcommand(ctx, "shoe", map[string]func(context.Context, []string, io.Reader, io.Writer, io.Writer) error{
		"watch": shoeWatch,
	}, args, stdin, stdout, stderr)
}

// shoeWatch prints every read of the reading shoe, one per line, until interrupted or --count
// draws. It is a technician's tool: it prints dealt cards as they leave the shoe, face-down ones
// included, so it belongs on the service port, not on a player-facing screen (RULES.md §1
// "Hidden cards").
func shoeWatch(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("shoe watch", "--port P [--record FILE] [--count N]", stderr)
	port := fs.String("port", "", "serial port of the shoe (e.g. /dev/ttyUSB0)")
	baud := fs.Int("baud", 9600, "line speed, 8N1")
	record := fs.String("record", "", "write a transcript of every byte received to this file")
	count := fs.Int("count", 0, "stop after this many draws (cards, unreadable cards, the cut card, malformed lines); 0: until interrupted")
	sim := fs.Bool("sim", false, "watch a simulated shoe on a pseudo-terminal that deals by itself")
	simDecks := fs.Int("sim-decks", 8, "with --sim: decks in the simulated shoe")
	simPace := fs.Duration("sim-pace", 200*time.Millisecond, "with --sim: time between cards")
	simSeed := fs.Uint64("sim-seed", 1, "with --sim: seed of the simulated shoe's order")
	simNoise := fs.Float64("sim-noise", 0, "with --sim: fraction of bytes damaged on the line (framing errors)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *sim == (*port != "") {
		fmt.Fprintln(stderr, "sabot shoe watch: give --port or --sim")
		return errUsage
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	path := *port
	if *sim {
		s, err := readershoetest.NewSim(readershoetest.Opts{Seed: *simSeed})
		if err != nil {
			return err
		}
		defer s.Close()
		var cards []card.Card
		for range *simDecks {
			cards = append(cards, card.Deck()...)
		}
		r := rand.New(rand.NewPCG(*simSeed, *simSeed))
		r.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
		behind := 6 // RULES.md §1: baccarat leaves exactly 6 cards behind the cut card
		s.Load(readershoetest.Stack(cards, max(len(cards)-behind, 0)))
		s.SetLineFaults(readershoetest.LineFaults{Corrupt: *simNoise})
		path = s.Port()
		fmt.Fprintf(stderr, "simulated shoe on %s: %d decks, one card every %v\n", path, *simDecks, *simPace)
		go func() {
			t := time.NewTicker(*simPace)
			defer t.Stop()
			for s.Remaining() > 0 {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					s.Draw()
				}
			}
		}()
	}
	opts := readershoe.Opts{Baud: *baud}
	if *record != "" {
		f, err := os.Create(*record)
		if err != nil {
			return fmt.Errorf("shoe watch: %w", err)
		}
		defer f.Close()
		opts.Record = f
	}
	dev, err := readershoe.Open(path, opts)
	if err != nil {
		return err
	}
	defer dev.Close()
	fmt.Fprintf(stderr, "watching the %s; interrupt to stop\n", dev)
	draws := 0
	for *count == 0 || draws < *count {
		r, err := dev.Next(ctx)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		}
		fmt.Fprintf(stdout, "#%-4d %s  %s\n", r.Seq, r.At.Format("15:04:05.000"), describeRead(r))
		if r.Draw() {
			draws++
		}
	}
	return nil
}

// describeRead says a read in words, shouting what holds the round.
func describeRead(r readershoe.Read) string {
	switch r.Kind {
	case readershoe.Card:
		if r.Mode == readershoe.Burn {
			return "burn  " + r.Card.String()
		}
		return "card  " + r.Card.String()
	case readershoe.Cut:
		return "CUT CARD"
	case readershoe.Unreadable:
		return "UNREADABLE card (held: enter it by hand)"
	case readershoe.Malformed:
		return fmt.Sprintf("MALFORMED line %q (held: %v)", r.Raw, r.Err)
	case readershoe.Noise:
		return fmt.Sprintf("noise %q", r.Raw)
	case readershoe.Alarm:
		return fmt.Sprintf("ALARM %s %s", r.Code, r.Text)
	case readershoe.Warning:
		return "warning " + r.Code
	case readershoe.LinkDown:
		return fmt.Sprintf("LINK DOWN: %v (cards drawn meanwhile may be lost)", r.Err)
	case readershoe.LinkUp:
		return "link up"
	}
	return r.String()
}
