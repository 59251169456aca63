package shoetest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/sabot-tables/sabot/games/progressive"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

// Item is one thing in a physical shoe: a card, or the cut (stop) card.
type Item struct {
	Card card.Card
	Cut  bool
}

// Table runs shoes through a shoe.Machine in memory: the shuffler, the shoe and the dealer are
// simulated here, deterministically for the dealer's random source, with no device and no bus.
// `sabot simulate` and the shoe's property tests use it.
type Table struct {
	M      *shoe.Machine
	Dealer *Dealer
	// Clock is the time of the next input; it advances by Tick after each.
	Clock time.Time
	Tick  time.Duration
	// MisreadEvery makes every n-th card drawn unreadable (0: never), to exercise the hold.
	MisreadEvery int
	// StrayEvery makes the reader see again, before every n-th card drawn, a card already
	// dealt (0: never): a foreign card to a one-deck game, an extra card to a shoe that the
	// end-of-shoe count finds, to exercise the faults that name a card.
	StrayEvery int
	// BurnModeEvery reads every n-th card drawn in the shoe's burn mode (0: never): a
	// discretionary burn between rounds, a card out of turn inside one.
	BurnModeEvery int
	// Emit receives every event in order. Seq and the envelope are the caller's to fill.
	Emit func(tablebus.Event) error
	// Journal, when set, receives each step: the input's journal form and its events.
	Journal func(input []byte, evs []tablebus.Event) error

	// Controller: an outside progressive controller answers the claims (the caller steps its
	// awards with Input); the table waits for them instead of answering itself.
	Controller bool
	// PoolValue is the main pool the simulated progressive controller pays from (its award's
	// value, as a floor's controller would say it); the prizes are progressive.DefaultTable's.
	PoolValue int64

	claim    *tablebus.Event // a progressive.hand waiting for the simulated controller's award
	tray     []card.Card     // the cards in the shuffler
	stack    []Item          // the cards in the shoe, next first
	discards []card.Card
	inHand   card.Card // the card the dealer is holding after a misread
	drawn    int
	strayed  bool // the stray before the next card is read
	last     tablebus.Event
}

// NewTable returns a table with new cards (N complete decks) in the shuffler.
func NewTable(m *shoe.Machine, d *Dealer, start time.Time) *Table {
	t := &Table{M: m, Dealer: d, Clock: start, Tick: 500 * time.Millisecond}
	for range d.Proc.Decks {
		t.tray = append(t.tray, card.Deck()...)
	}
	t.last = m.Guidance(start)
	return t
}

// Tray returns the cards in the shuffler (tests tamper with it to make a deck incomplete).
func (t *Table) Tray() *[]card.Card { return &t.tray }

// ErrStuck is returned when the dealer has nothing to do and the table waits for nobody.
var ErrStuck = errors.New("shoetest: the table is stuck")

// RunShoes plays until n shoes have ended (shoe.ended events), or until maxSteps inputs.
func (t *Table) RunShoes(n int, maxSteps int) error {
	return t.RunUntil(n, maxSteps, nil)
}

// RunUntil is RunShoes with a hook called before each action with the count of actions so far;
// a crash test swaps the machine there.
func (t *Table) RunUntil(n int, maxSteps int, before func(step int) error) error {
	ended := 0
	for step := 0; step < maxSteps; step++ {
		if before != nil {
			if err := before(step); err != nil {
				return err
			}
		}
		evs, err := t.act()
		if err != nil {
			return err
		}
		for _, e := range evs {
			if e.Type == tablebus.ShoeEnded {
				ended++
			}
		}
		if ended >= n && t.M.Phase() == shoe.Idle {
			return nil
		}
	}
	return fmt.Errorf("shoetest: %d shoes not done in %d steps", n, maxSteps)
}

func (t *Table) step(in shoe.Input) ([]tablebus.Event, error) {
	evs, err := t.M.Step(in)
	if err != nil {
		return nil, fmt.Errorf("shoetest: step %T: %w", in, err)
	}
	if t.Journal != nil && len(evs) > 0 {
		b, err := shoe.MarshalInput(in)
		if err != nil {
			return nil, err
		}
		if err := t.Journal(b, evs); err != nil {
			return nil, err
		}
	}
	for _, e := range evs {
		if t.Emit != nil {
			if err := t.Emit(e); err != nil {
				return nil, err
			}
		}
		t.Dealer.Observe(e)
		switch e.Type {
		case tablebus.Guide:
			t.last = e
		case tablebus.ProgressiveHand:
			c := e
			t.claim = &c
		case tablebus.ProgressiveAward, tablebus.RoundVoided:
			t.claim = nil
		}
	}
	t.Clock = t.Clock.Add(t.Tick)
	return evs, nil
}

// OpenProgressive tells the machine its progressive controller is online: the dealer then
// offers the progressive, and the table answers each round's claims as a controller would.
func (t *Table) OpenProgressive() error {
	_, err := t.step(shoe.ProgressiveLink{Open: true, Time: t.Clock})
	return err
}

// Input steps one input from outside the table (a progressive controller's award), as the
// table's own are stepped: journaled, emitted, shown to the dealer.
func (t *Table) Input(in shoe.Input) ([]tablebus.Event, error) { return t.step(in) }

// Step does the dealer's next action once; ErrStuck when the table waits for nobody at the
// table (a progressive award).
func (t *Table) Step() ([]tablebus.Event, error) { return t.act() }

// award answers the round's progressive.hand as a floor's controller would: the prizes of
// progressive.DefaultTable from a main pool holding PoolValue.
func (t *Table) award() ([]tablebus.Event, error) {
	h := *t.claim
	t.claim = nil
	var bets []progressive.Bet
	for _, c := range h.Claims {
		bets = append(bets, progressive.Bet{Seat: c.Seat, Amount: c.Amount, Cards: c.Cards, Folded: c.Folded, Void: c.Void})
	}
	a := tablebus.Award{V: tablebus.SchemaVersion, Controller: "progressive.sim", Pool: h.Pool, Table: t.M.Table(), Round: h.Round,
		Ref: h.Seq, OK: true, Value: t.PoolValue, TS: t.Clock}
	for _, p := range progressive.DefaultTable().Pay(t.PoolValue, bets) {
		a.Payouts = append(a.Payouts, tablebus.PrizePaid{Seat: p.Seat, Kind: p.Kind, Category: p.Category.String(), Prize: p.Prize.String(), Amount: p.Amount})
	}
	return t.step(shoe.ProgressiveAward{Award: a, Time: t.Clock})
}

func (t *Table) act() ([]tablebus.Event, error) {
	if t.claim != nil && t.M.AwaitingAward() != 0 && t.M.Held() == "" && !t.Controller {
		return t.award()
	}
	a, err := t.Dealer.Next(t.last)
	if err != nil {
		return nil, err
	}
	now := t.Clock
	switch a.Kind {
	case NewShoe:
		evs, err := t.step(shoe.NewCards{Counts: card.CountOf(t.tray), Time: now})
		if err != nil || t.M.Phase() != shoe.Verified {
			return evs, err
		}
		// The daemon shuffles as soon as the cards are verified.
		t.Dealer.Rng.Shuffle(len(t.tray), func(i, j int) { t.tray[i], t.tray[j] = t.tray[j], t.tray[i] })
		more, err := t.step(shoe.ShuffleDone{Cards: len(t.tray), By: "shuffler", Time: t.Clock})
		if t.Dealer.Proc.BehindMax == 0 { // poker: no cut, no stop card: the pack goes in the shoe
			for _, c := range t.tray {
				t.stack = append(t.stack, Item{Card: c})
			}
			t.tray = nil
		}
		return append(evs, more...), err
	case Cut:
		t.tray = append(t.tray[a.At:], t.tray[:a.At]...)
		return t.step(shoe.CutDone{At: a.At, Dealer: t.Dealer.ID, Time: now})
	case PlaceCut:
		t.stack = t.stack[:0]
		for i, c := range t.tray {
			if i == len(t.tray)-a.Behind {
				t.stack = append(t.stack, Item{Cut: true})
			}
			t.stack = append(t.stack, Item{Card: c})
		}
		t.tray = nil
		return t.step(shoe.CutCardPlaced{Behind: a.Behind, Dealer: t.Dealer.ID, Time: now})
	case Draw:
		if t.M.Phase() == shoe.Between && t.M.Left() == 0 {
			return nil, ErrStuck
		}
		if len(t.stack) == 0 {
			return nil, fmt.Errorf("shoetest: the shoe is empty and the table wants a card")
		}
		it := t.stack[0]
		if t.StrayEvery > 0 && !it.Cut && len(t.discards) > 0 && (t.drawn+1)%t.StrayEvery == 0 && !t.strayed {
			// The same physical card read twice: the tray and the discards stay as they are.
			t.strayed = true
			c := t.discards[t.Dealer.Rng.IntN(len(t.discards))]
			return t.step(shoe.Read{Kind: shoe.ReadCard, Card: c, Time: now})
		}
		t.strayed = false
		t.stack = t.stack[1:]
		if it.Cut {
			return t.step(shoe.Read{Kind: shoe.ReadCut, Time: now})
		}
		t.discards = append(t.discards, it.Card)
		t.drawn++
		if t.MisreadEvery > 0 && t.drawn%t.MisreadEvery == 0 {
			t.inHand = it.Card
			// What a camera's frames saw: the card, and a card it could be taken for.
			seen := []card.Card{it.Card, card.New(it.Card.Rank()%card.King+1, it.Card.Suit())}
			return t.step(shoe.Read{Kind: shoe.ReadUnreadable, Detail: "simulated misread", Seen: seen, Time: now})
		}
		burn := t.BurnModeEvery > 0 && t.drawn%t.BurnModeEvery == 0
		return t.step(shoe.Read{Kind: shoe.ReadCard, Card: it.Card, BurnMode: burn, Time: now})
	case Bets:
		return t.step(shoe.OpenRound{Bets: a.Bets, Time: now})
	case Decide:
		return t.step(shoe.PlayerDecision{Seat: a.Seat, Choice: a.Choice, Time: now})
	case Manual:
		evs, err := t.step(shoe.ManualCard{Card: t.inHand, Dealer: t.Dealer.ID, Time: now})
		if errors.Is(err, shoe.ErrRefused) && (t.StrayEvery > 0) {
			// A stray took the card's last copy from the shoe's count: the card cannot be
			// entered, and the dealer voids the round.
			return t.step(shoe.VoidRound{Reason: "the card cannot be entered", Dealer: t.Dealer.ID, Time: now})
		}
		return evs, err
	case Void:
		return t.step(shoe.VoidRound{Reason: "simulated fault", Dealer: t.Dealer.ID, Time: now})
	case Manage:
		return t.step(shoe.TableAction{Action: a.Manage, Dealer: t.Dealer.ID, Time: now})
	case Count:
		var left []card.Card
		for _, it := range t.stack {
			if !it.Cut {
				left = append(left, it.Card)
			}
		}
		t.stack = nil
		evs, err := t.step(shoe.LeftCounted{Counts: card.CountOf(left), Time: now})
		// Everything goes back into the shuffler for the next shoe.
		t.tray = append(append(t.tray, t.discards...), left...)
		t.discards = nil
		return evs, err
	case Wait:
		return nil, ErrStuck
	}
	return nil, fmt.Errorf("shoetest: unknown action %v", a.Kind)
}

// Seeded returns a deterministic random source for a seed.
func Seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5ab07)) }
