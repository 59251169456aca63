package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"time"

	"github.com/sabot-tables/sabot/driver/readershoe/readershoetest"
	"github.com/sabot-tables/sabot/driver/shuffler/shufflertest"
	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/baccarat"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/shoe/shoetest"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/outbox"
)

// simTable is the simulated part of a table: a shuffler and a reading shoe on pseudo-terminals,
// which the daemon opens like real serial ports, and the dealer who handles the cards.
type simTable struct {
	shuffler *shufflertest.Sim
	shoe     physicalShoe
	dealer   *shoetest.Dealer
	discards []card.Card // the cards dealt and burned, in the discard holder
	pack     []card.Card // the pack taken out of the shuffler, in the dealer's hands
	lastCard card.Card   // the card last drawn
	misread  int
	drawn    int
	decks    int
	shoePort string      // the reading shoe's pseudo-terminal
	camera   *cameraShoe // the daemon's side of the simulated camera shoe
	unloaded bool        // the simulated hands put the cards left in the shuffler at this shoe's end
	stack    []card.Card // --sim-stack: the first shoe's first cards, once
	log      *slog.Logger
	// mode is --shuffler: "sabot" (the simulated shuffler reads, shuffles and counts), "none"
	// (the dealer's hands shuffle and pass the cards left through the shoe) or "csm" (a
	// continuous shuffler takes every round's cards back).
	mode     string
	pile     []card.Card // none, csm: the cards in the dealer's hands, out of shoe and discards
	inShoe   int         // csm: rounds dealt in the shoe, for the simulated dealer to end it
	counting bool        // none, csm: the cards left are being passed through the shoe
}

func newSimTable(ctx context.Context, o *options, proc shoe.Procedure, log *slog.Logger) (*simTable, error) {
	seed := o.simSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	sh, err := shufflertest.NewSim(shufflertest.Opts{Seed: seed, Logger: log})
	if err != nil {
		return nil, err
	}
	t := &simTable{shuffler: sh, misread: o.simMisread, dealer: shoetest.NewDealer(o.game, proc, seed), log: log.With("sim", "hands"), stack: o.simStack,
		mode: o.shufflerKind}
	// A baccarat table's side bets (option side-bets, or its pay table's own) get bettors too.
	// Every bet is within the table's limits (--limits, and option limits' seed 003 range).
	limits, _ := parseLimits(o.limits) // checked where the table's engine is made
	if b, err := baccarat.New(games.Config{Game: o.game, Limits: limits, Options: o.options.m}); err == nil {
		t.dealer.Bettors = shoetest.SideBettors(t.dealer.Bettors, b.SideSpots(), 100)
		limits = b.Limits()
	}
	t.dealer.Limits = limits
	if o.shoeKind == "camera" {
		cs, cam, err := openSimCamera(ctx, o.simDeck, filepath.Dir(o.journal), seed, log)
		if err != nil {
			sh.Close()
			return nil, err
		}
		t.shoe, t.camera = cs, cam
	} else {
		rs, err := readershoetest.NewSim(readershoetest.Opts{Seed: seed, Logger: log})
		if err != nil {
			sh.Close()
			return nil, err
		}
		t.shoe, t.shoePort = readerSim{rs}, rs.Port()
	}
	t.decks = proc.Decks
	return t, nil
}

// restore puts the simulated world where the restored machine says it is: a daemon restarted
// mid-shoe finds the cards where they physically were (in a new random order, since the
// simulation's memory died with the daemon).
func (t *simTable) restore(m *shoe.Machine) {
	rng := t.dealer.Rng
	list := func(c card.Counts) []card.Card {
		var out []card.Card
		for i, n := range c {
			for range n {
				out = append(out, card.FromIndex(i))
			}
		}
		rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out
	}
	switch m.Phase() {
	case shoe.Idle, shoe.Verified:
		if t.mode != "sabot" { // in the dealer's hands
			t.pile = list(card.Decks(t.decks))
			if m.Phase() == shoe.Verified {
				t.pack, t.pile = t.pile, nil
			}
			return
		}
		// New cards, or the load the shuffler holds: N complete decks in its input tray.
		for range t.decks {
			t.shuffler.Insert(card.Deck())
		}
	case shoe.Shuffled, shoe.CutDown:
		t.pack = list(m.Verified())
	default:
		left := list(m.Remaining())
		dealt := m.Verified()
		for i, n := range m.Remaining() {
			dealt[i] -= n
		}
		t.discards = list(dealt)
		if m.Held() == shoe.FaultMisread && len(left) > 0 { // the unread card is in the dealer's hand
			t.lastCard, left = left[0], left[1:]
			t.discards = append(t.discards, t.lastCard)
		}
		behind, seen := m.StopCard()
		var stack []readershoetest.Item
		for i, c := range left {
			if !seen && i == max(0, len(left)-behind) {
				stack = append(stack, readershoetest.Item{Cut: true})
			}
			stack = append(stack, readershoetest.Item{Card: c})
		}
		t.shoe.Load(stack)
	}
}

func (t *simTable) Close() {
	t.shoe.Close()
	t.shuffler.Close()
}

// deal is the simulated dealer: after each guidance event it does what the table asks, at the
// configured pace, with the real devices' bytes going over the pseudo-terminals. It returns
// after o.simShoes shoes (never when 0).
func (t *simTable) deal(ctx context.Context, ob *outbox.Observer, loop *shoe.Loop, o *options, log *slog.Logger) error {
	log = log.With("sim", "dealer")
	shoes := 0
	drawing := false // a card drawn and not yet seen on the feed: the dealer does not draw again
	// With the simulated dealer off, the dealer terminal gives every command; the simulated
	// hands only do what has no command: they draw the cards the table asks for, cut the pack
	// and load the shoe as the terminal's cut and stop card say, and carry the cards between
	// the shoe and the shuffler.
	hands := o.simDealer == "off"
	// A refused action changes nothing, so the table says nothing new: unless something comes,
	// the dealer looks at the same guidance again after a while (new bets, another try).
	var refused *tablebus.Event
	next := func() (tablebus.Event, error) {
		if refused == nil {
			return ob.Next(ctx)
		}
		wctx, cancel := context.WithTimeout(ctx, max(o.simPace, simRetry))
		defer cancel()
		e, err := ob.Next(wctx)
		if err != nil && ctx.Err() == nil {
			return *refused, nil
		}
		return e, err
	}
	for {
		e, err := next()
		if err != nil {
			return nil
		}
		if e.Type == tablebus.Guide {
			refused = nil // what the table says now
		}
		if e.Type == tablebus.ShoeEnded {
			shoes++
		}
		// The simulation knows the truth: a card the table read as another is the worst thing
		// a shoe can do (RULES.md §1: never guess); say it loudly.
		if (e.Type == tablebus.CardDealt || e.Type == tablebus.Burn) && e.Card != nil && e.Manual == nil && *e.Card != t.lastCard {
			log.Error("SIM: WRONG READ", "drawn", t.lastCard.String(), "read", e.Card.String(), "seq", e.Seq)
		}
		t.dealer.Observe(e)
		if err := t.handle(e, hands); err != nil {
			log.Warn("simulated hands", "event", e.Type, "err", err)
		}
		if e.Type == tablebus.Guide && t.mode != "sabot" && e.State == shoe.Counting.String() && t.cardsToPass() {
			// No shuffler counts the cards left: the dealer passes them through the shoe.
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(o.simPace):
			}
			if err := t.passOne(ctx); err != nil && ctx.Err() == nil {
				log.Warn("simulated hands: passing a card left", "err", err)
			}
			continue
		}
		if e.Type == tablebus.Guide && t.mode == "csm" && !hands && e.State == shoe.Between.String() && t.inShoe >= csmRounds {
			// The simulated dealer ends a continuous shuffler's shoe now and then, to count it.
			t.inShoe = 0
			if err := loop.Do(ctx, shoe.EndShoe{By: t.dealer.ID, Time: time.Now()}); err != nil && ctx.Err() == nil {
				log.Warn("simulated dealer: ending the shoe", "err", err)
			}
			continue
		}
		switch e.Type {
		case tablebus.CardDealt, tablebus.Burn, tablebus.Fault, tablebus.CutCardReached, tablebus.ShoeEnded:
			drawing = false
		}
		if e.Type != tablebus.Guide {
			continue
		}
		if o.simShoes > 0 && shoes >= o.simShoes && e.State == shoe.Idle.String() {
			log.Info("simulation done", "shoes", shoes)
			return nil
		}
		a, err := t.dealer.Next(e)
		if err != nil {
			return err
		}
		if a.Kind == shoetest.Wait || a.Kind == shoetest.Draw && drawing || hands && a.Kind != shoetest.Draw {
			// A guidance that repeats the need of a card already drawn (an input that changed
			// nothing of the round, such as the progressive controller's status, says it again).
			continue
		}
		drawing = a.Kind == shoetest.Draw
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(o.simPace):
		}
		// The dealer burns with the shoe's panel in Manual Burn Cards mode (the Bee-Tek protocol).
		t.shoe.SetBurnMode(e.State == shoe.Burning.String())
		if err := t.act(ctx, a, loop); err != nil {
			drawing = false // nothing was drawn: the next guidance may ask again
			if ctx.Err() != nil {
				return nil
			}
			log.Warn("simulated dealer", "action", a.Kind.String(), "err", err)
			refused = &e
		}
	}
}

// simRetry is how long the simulated dealer waits for news after a refused action before it
// looks at the table's guidance again.
const simRetry = 200 * time.Millisecond

func (t *simTable) act(ctx context.Context, a shoetest.Action, loop *shoe.Loop) error {
	now := time.Now()
	switch a.Kind {
	case shoetest.NewShoe:
		if t.mode != "sabot" {
			t.gather()
			return loop.Do(ctx, shoe.StartShoe{Attest: t.attest(), By: t.dealer.ID})
		}
		t.loadShuffler()
		return loop.Do(ctx, shoe.StartShoe{})
	case shoetest.Cut:
		if err := t.cut(a.At); err != nil {
			return err
		}
		return loop.Do(ctx, shoe.CutDone{At: a.At, Dealer: t.dealer.ID, Time: now})
	case shoetest.PlaceCut:
		t.placeCut(a.Behind)
		return loop.Do(ctx, shoe.CutCardPlaced{Behind: a.Behind, Dealer: t.dealer.ID, Time: now})
	case shoetest.Draw:
		if t.shoe.Remaining() == 0 && len(t.pack) == 0 && t.mode == "sabot" {
			t.pack = t.shuffler.TakeOutput() // poker: no cut, no stop card
		}
		if len(t.pack) > 0 { // a pack without a stop card (poker) goes into the shoe as it is
			t.stackPack()
			var stack []readershoetest.Item
			for _, c := range t.pack {
				stack = append(stack, readershoetest.Item{Card: c})
			}
			t.pack = nil
			t.shoe.Load(stack)
		}
		t.drawn++
		if t.misread > 0 && t.drawn%t.misread == 0 {
			t.shoe.NotRead(1)
		}
		it, err := t.shoe.DrawItem(ctx)
		if err != nil {
			return err
		}
		if !it.Cut {
			t.lastCard = it.Card
			t.discards = append(t.discards, it.Card)
			// The simulation knows the card a misread leaves unread (a test enters it by hand).
			t.log.Debug("simulated dealer drew", "card", it.Card.String(), "drawn", t.drawn)
		}
		return nil // the read arrives through the driver
	case shoetest.Bets:
		return loop.Do(ctx, shoe.OpenRound{Bets: a.Bets, Time: now})
	case shoetest.Decide:
		return loop.Do(ctx, shoe.PlayerDecision{Seat: a.Seat, Choice: a.Choice, Time: now})
	case shoetest.Manual:
		return loop.Do(ctx, shoe.ManualCard{Card: t.lastCard, Dealer: t.dealer.ID, Time: now})
	case shoetest.Void:
		return loop.Do(ctx, shoe.VoidRound{Reason: "simulated: the supervisor voids the round", Dealer: t.dealer.ID, Time: now})
	case shoetest.Manage:
		return loop.Do(ctx, shoe.TableAction{Action: a.Manage, Dealer: t.dealer.ID, Time: now})
	case shoetest.Count:
		if t.mode != "sabot" { // the cards left were passed through the shoe
			return loop.Do(ctx, shoe.CountLeft{By: t.dealer.ID})
		}
		t.unloadShoe()
		return loop.Do(ctx, shoe.CountLeft{})
	}
	return nil
}

// The physical steps of the simulated hands, with or without the simulated dealer's commands.

// loadShuffler puts the discards in the shuffler's input tray, with the cards left that the
// count put there: the next shoe's cards.
func (t *simTable) loadShuffler() {
	t.shuffler.Insert(t.discards)
	t.discards = nil
}

// cut takes the shuffled pack out of the shuffler and cuts it at.
func (t *simTable) cut(at int) error {
	if len(t.pack) == 0 {
		t.pack = t.shuffler.TakeOutput()
	}
	if at > len(t.pack) {
		return fmt.Errorf("cut at %d of %d cards", at, len(t.pack))
	}
	t.pack = append(t.pack[at:], t.pack[:at]...)
	return nil
}

// stackPack puts --sim-stack's cards first in the pack, in their order, once: a stacked deck,
// as a dealer school deals one, for a test that needs a round of given cards.
func (t *simTable) stackPack() {
	if len(t.stack) == 0 {
		return
	}
	rest := slices.Clone(t.pack)
	var top []card.Card
	for _, c := range t.stack {
		if i := slices.Index(rest, c); i >= 0 {
			top = append(top, c)
			rest = slices.Delete(rest, i, i+1)
		}
	}
	t.pack, t.stack = append(top, rest...), nil
}

// placeCut puts the stop card behind cards from the back and the pack in the shoe.
func (t *simTable) placeCut(behind int) {
	t.stackPack()
	var stack []readershoetest.Item
	for i, c := range t.pack {
		if i == len(t.pack)-behind {
			stack = append(stack, readershoetest.Item{Cut: true})
		}
		stack = append(stack, readershoetest.Item{Card: c})
	}
	t.pack = nil
	t.shoe.Load(stack)
}

// unloadShoe takes the cards left out of the shoe (and a pack never dealt) into the shuffler,
// to be counted.
func (t *simTable) unloadShoe() {
	if len(t.pack) == 0 && t.shoe.Remaining() == 0 {
		t.pack = t.shuffler.TakeOutput() // a poker round nobody played: the pack was never dealt
	}
	t.shuffler.Insert(append(t.shoe.Unload(), t.pack...))
	t.pack = nil
}

// handle is the simulated hands' answer to what the table did that has no command of its own:
// a continuous shuffler's return of a round's cards and its first load (every mode), and, with
// the dealer terminal dealing (hands), the cut and the stop card where the terminal said and
// the cards carried at the shoe's end and start.
func (t *simTable) handle(e tablebus.Event, hands bool) error {
	switch {
	case e.Type == tablebus.CardsReturned:
		t.returnCards()
	case e.Type == tablebus.Shuffled && t.mode == "csm":
		t.loadPack() // the continuous shuffler's output is the shoe: no cut, no stop card
	case e.Type == tablebus.RoundSettled || e.Type == tablebus.RoundVoided:
		t.inShoe++
	case !hands:
	case e.Type == tablebus.Cut:
		return t.cut(e.At)
	case e.Type == tablebus.CutCardPlaced:
		t.placeCut(e.Behind)
	case e.Type == tablebus.Guide && e.State == shoe.Counting.String() && !t.unloaded && t.mode == "sabot":
		t.unloadShoe()
		t.unloaded = true
	case e.Type == tablebus.Guide && e.State == shoe.Idle.String() && t.mode != "sabot" && len(t.pack) == 0:
		t.gather()
	case e.Type == tablebus.Guide && e.State == shoe.Idle.String() && len(t.discards) > 0:
		t.loadShuffler()
	}
	if e.Type == tablebus.Guide && e.State != shoe.Counting.String() && e.State != "held" {
		t.unloaded = false
	}
	return nil
}

// csmRounds is how many rounds the simulated dealer deals from a continuous shuffler before
// ending its shoe to count it.
const csmRounds = 20

// attest is how the simulated dealer says the cards were shuffled.
func (t *simTable) attest() string {
	if t.mode == "csm" {
		return "csm"
	}
	return "hand"
}

// gather takes every card off the table into the dealer's hands and shuffles them there (no
// shuffler's link) or loads them into the continuous shuffler: the next shoe's pack.
func (t *simTable) gather() {
	cards := append(append(t.pile, t.discards...), t.shoe.Unload()...)
	t.pile, t.discards = nil, nil
	t.dealer.Rng.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
	t.pack = cards
}

// loadPack puts the pack in the shoe as it is (no stop card).
func (t *simTable) loadPack() {
	t.stackPack()
	var stack []readershoetest.Item
	for _, c := range t.pack {
		stack = append(stack, readershoetest.Item{Card: c})
	}
	t.pack = nil
	t.shoe.Load(stack)
}

// returnCards puts the round's cards back into the continuous shuffler, at random places.
func (t *simTable) returnCards() {
	cards := append(t.shoe.Unload(), t.discards...)
	t.discards = nil
	t.dealer.Rng.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
	var stack []readershoetest.Item
	for _, c := range cards {
		stack = append(stack, readershoetest.Item{Card: c})
	}
	t.shoe.Load(stack)
}

// cardsToPass reports whether cards are left to pass through the shoe at the count.
func (t *simTable) cardsToPass() bool { return t.shoe.Remaining() > 0 || len(t.pack) > 0 }

// passOne passes one card left through the reading shoe, to be counted.
func (t *simTable) passOne(ctx context.Context) error {
	if t.shoe.Remaining() == 0 && len(t.pack) > 0 {
		t.loadPack() // a pack never dealt (a poker round nobody played)
	}
	t.shoe.SetBurnMode(false)
	it, err := t.shoe.DrawItem(ctx)
	if err != nil {
		return err
	}
	if !it.Cut {
		t.discards = append(t.discards, it.Card)
	}
	return nil
}
