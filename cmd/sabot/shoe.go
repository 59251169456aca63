package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"time"

	"github.com/sabot-tables/sabot/driver/camerashoe"
	"github.com/sabot-tables/sabot/driver/camerashoe/camerashoetest"
	"github.com/sabot-tables/sabot/driver/readershoe"
	"github.com/sabot-tables/sabot/driver/readershoe/readershoetest"
	"github.com/sabot-tables/sabot/shoe/card"
)

func init() {
	addCommand(command{name: "shoe", summary: "shoe watch --port P: print what the card-reading shoe sends; shoe gpio: the camera shoe's sensors and buttons", run: runShoe})
}

func runShoe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return subcommand(ctx, "shoe", map[string]func(context.Context, []string, io.Reader, io.Writer, io.Writer) error{
		"watch": shoeWatch,
		"gpio":  shoeGPIO,
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

// shoeGPIO prints the camera shoe's GPIO events (card exit gate, lid, buttons) and lights its
// status LED while it watches: a technician's check of the wiring.
func shoeGPIO(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("shoe gpio", "--exit PIN --lid PIN --confirm PIN --manual PIN --void PIN [--led PIN] [--count N]", stderr)
	var n camerashoe.Names
	fs.StringVar(&n.Exit, "exit", "GPIO17", "card-exit gate input (high while a card blocks it)")
	fs.StringVar(&n.Lid, "lid", "GPIO27", "lid switch input (high while open)")
	fs.StringVar(&n.Confirm, "confirm", "GPIO22", "confirm button input (low while pressed)")
	fs.StringVar(&n.Manual, "manual", "GPIO23", "manual-entry button input (low while pressed)")
	fs.StringVar(&n.Void, "void", "GPIO24", "void-round button input (low while pressed)")
	fs.StringVar(&n.LED, "led", "GPIO25", "status LED output; empty for none")
	count := fs.Int("count", 0, "stop after this many cards out of the gate; 0: until interrupted")
	sim := fs.Bool("sim", false, "simulated pins with a simulated dealer instead of the board's GPIO")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var dev *camerashoe.Dev
	var err error
	if *sim {
		pins := camerashoetest.NewSim()
		dev, err = camerashoe.New(pins.Pins(), camerashoe.Opts{})
		if err == nil {
			fmt.Fprintln(stderr, "simulated camera shoe: a card every 300 ms, the lid opened once, confirm pressed")
			// Real time here, so no flicker or contact bounce: a loaded machine could stretch
			// them past the filters (the camerashoe tests cover those in a synctest bubble).
			go func() {
				for i := 0; ctx.Err() == nil; i++ {
					pins.PassCard(80 * time.Millisecond)
					time.Sleep(220 * time.Millisecond)
					if i == 1 {
						pins.OpenLid()
						time.Sleep(100 * time.Millisecond)
						pins.CloseLid()
						time.Sleep(50 * time.Millisecond)
						pins.Hold(pins.Confirm, 100*time.Millisecond)
					}
				}
			}()
		}
	} else {
		dev, err = camerashoe.OpenByName(n, camerashoe.Opts{})
	}
	if err != nil {
		return err
	}
	defer dev.Halt()
	dev.SetLED(camerashoe.LEDReady)
	fmt.Fprintf(stderr, "watching the %s; interrupt to stop\n", dev)
	cards := 0
	for *count == 0 || cards < *count {
		e, err := dev.Next(ctx)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		}
		fmt.Fprintf(stdout, "#%-4d %s  %s\n", e.Seq, e.At.Format("15:04:05.000"), e)
		if e.Kind == camerashoe.CardExit {
			cards++
		}
	}
	return nil
}
