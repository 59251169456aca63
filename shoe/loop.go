package shoe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

// Shuffler is what the loop needs of the shuffler (driver/shuffler provides it).
type Shuffler interface {
	// LoadVerify reads every card in the input tray (RULES.md §1 deck verification).
	LoadVerify(ctx context.Context) (card.Counts, error)
	// Shuffle shuffles the cards read and reports how many it shuffled.
	Shuffle(ctx context.Context, decks int) (int, error)
	// Count reads the cards put in it at the end of a shoe (the cards left).
	Count(ctx context.Context) (card.Counts, error)
}

// Sink journals and publishes a step's events, in order, filling their envelope, together with
// the input that produced them (MarshalInput's JSON; nil for none). An error is fatal: a table
// that cannot journal must stop.
type Sink interface {
	Emit(ctx context.Context, input []byte, evs []tablebus.Event) error
}

// StartShoe asks the loop to start a shoe: the shuffler reads and verifies the cards, then
// shuffles them (the dealer terminal's new-shoe). Verified but not shuffled (a restart in
// between), it shuffles.
type StartShoe struct {
	By string // who asked (the supervisor at the terminal), or ""
	// Attest is how the cards were shuffled where no shuffler reads them (the loop has none):
	// "hand" (shuffled by hand), "pre-shuffled" (packs shuffled by their maker) or "csm" (a
	// continuous shuffler's load); the dealer attests N complete decks (RULES.md §1).
	Attest string
}

// Ping asks the loop for a sign of life: it answers at once, changing nothing (the watchdog's
// probe: a loop that answers is taking inputs).
type Ping struct{}

// CountLeft asks the loop to have the shuffler count the cards left at the end of a shoe.
type CountLeft struct {
	By string // who asked, or ""
}

// Loop runs a Machine: it takes inputs from the devices and the bus one at a time, drives the
// shuffler where the procedure needs it, and hands each step's events to the sink.
type Loop struct {
	M        *Machine
	Shuffler Shuffler
	Sink     Sink
	Log      *slog.Logger
	Now      func() time.Time

	reqs chan request
}

type request struct {
	in    any // an Input, StartShoe or CountLeft
	reply chan error
}

// NewLoop returns a loop; call Run to start it.
func NewLoop(m *Machine, sh Shuffler, sink Sink, log *slog.Logger) *Loop {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Loop{M: m, Shuffler: sh, Sink: sink, Log: log, Now: time.Now, reqs: make(chan request)}
}

// Do hands the loop one input (a shoe.Input, StartShoe or CountLeft) and waits for it to be
// applied. The error is a refusal (wrapping ErrRefused) or a device error; either way the table
// state is consistent.
func (l *Loop) Do(ctx context.Context, in any) error {
	r := request{in: in, reply: make(chan error, 1)}
	select {
	case l.reqs <- r:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-r.reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ErrSink wraps a sink failure, which stops the loop.
var ErrSink = errors.New("shoe: cannot journal")

// Run applies inputs until ctx is done or the sink fails. It starts by emitting the current
// guidance so that everyone knows what the table waits for.
func (l *Loop) Run(ctx context.Context) error {
	if err := l.Sink.Emit(ctx, nil, []tablebus.Event{l.M.Guidance(l.Now())}); err != nil {
		return fmt.Errorf("%w: %w", ErrSink, err)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case r := <-l.reqs:
			err := l.apply(ctx, r.in)
			if errors.Is(err, ErrSink) {
				r.reply <- err
				return err
			}
			r.reply <- err
		}
	}
}

func (l *Loop) step(ctx context.Context, in Input) error {
	b, err := MarshalInput(in)
	if err != nil {
		return err
	}
	evs, err := l.M.Step(in)
	if err != nil {
		return err
	}
	if err := l.Sink.Emit(ctx, b, evs); err != nil {
		return fmt.Errorf("%w: %w", ErrSink, err)
	}
	return nil
}

func (l *Loop) deviceFault(ctx context.Context, device string, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		// The daemon is stopping, the device did not fail: nothing is journaled, and the shoe
		// resumes from its phase after the restart (a Verified shoe shuffles again).
		l.Log.Info("device command interrupted by the stop", "device", device, "err", err)
		return fmt.Errorf("shoe: %s: %w", device, err)
	}
	l.Log.Error("device fault", "device", device, "err", err)
	if serr := l.step(ctx, DeviceFault{Device: device, Code: "device", Detail: err.Error(), Time: l.Now()}); serr != nil {
		return serr
	}
	return fmt.Errorf("shoe: %s: %w", device, err)
}

func (l *Loop) apply(ctx context.Context, in any) error {
	switch in := in.(type) {
	case StartShoe:
		if h := l.M.Held(); h != "" && h != FaultDeck {
			return refused("new shoe: the table is held (%s); resolve it first", h)
		}
		if l.Shuffler == nil {
			return l.attest(ctx, in)
		}
		switch l.M.Phase() {
		case Idle:
			counts, err := l.Shuffler.LoadVerify(ctx)
			if err != nil {
				return l.deviceFault(ctx, "shuffler", err)
			}
			if err := l.step(ctx, NewCards{Counts: counts, By: in.By, Time: l.Now()}); err != nil {
				return err
			}
			if l.M.Phase() != Verified {
				return nil // the deck check failed: the fault is published
			}
		case Verified: // verified before a restart: the shuffler still holds the load
		default:
			return refused("new shoe while the shoe is %s", l.M.Phase())
		}
		n, err := l.Shuffler.Shuffle(ctx, l.M.cfg.Proc.Decks)
		if err != nil {
			return l.deviceFault(ctx, "shuffler", err)
		}
		return l.step(ctx, ShuffleDone{Cards: n, By: "shuffler", Time: l.Now()})
	case CountLeft:
		if h := l.M.Held(); h != "" {
			return refused("count: the table is held (%s); resolve it first", h)
		}
		if l.M.Phase() != Counting {
			return refused("count while the shoe is %s", l.M.Phase())
		}
		if l.Shuffler == nil { // the dealer passed the cards left through the reading shoe
			return l.step(ctx, LeftCounted{Counts: l.M.Counted(), By: in.By, Time: l.Now()})
		}
		counts, err := l.Shuffler.Count(ctx)
		if err != nil {
			return l.deviceFault(ctx, "shuffler", err)
		}
		return l.step(ctx, LeftCounted{Counts: counts, By: in.By, Time: l.Now()})
	case Ping:
		return nil
	case Input:
		return l.step(ctx, in)
	}
	return fmt.Errorf("shoe: loop given %T", in)
}

// Attestations of a shoe no shuffler reads (StartShoe.Attest).
var attests = map[string]bool{"hand": true, "pre-shuffled": true, "csm": true}

// attest starts a shoe without a shuffler: the dealer attests N complete decks, shuffled as
// in.Attest says; the shoe's count verifies them (RULES.md §1 "Deck verification").
func (l *Loop) attest(ctx context.Context, in StartShoe) error {
	if !attests[in.Attest] {
		return refused("new shoe: no shuffler reads the cards here: the dealer attests them, shuffled by hand, pre-shuffled or in a continuous shuffler (got %q)", in.Attest)
	}
	switch l.M.Phase() {
	case Idle:
		if err := l.step(ctx, NewCards{Counts: card.Decks(l.M.cfg.Proc.Decks), By: in.By, Attested: true, Time: l.Now()}); err != nil {
			return err
		}
	case Verified:
	default:
		return refused("new shoe while the shoe is %s", l.M.Phase())
	}
	return l.step(ctx, ShuffleDone{Cards: l.M.cfg.Proc.Total(), By: in.Attest, Time: l.Now()})
}
