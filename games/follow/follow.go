// Package follow runs a game engine from a table's feed: the logic of `sabot engine`, the game
// engine that consumes the daemon's events over MQTT as a separate process. It applies the
// round's bets, cards, burns and decisions to its own engine, says what the round needs next,
// and settles the round; and it checks the daemon's own account of each round against its own,
// raising an alarm at the first difference (where a card went, a result, a settlement).
//
// A Follower is pure: events in, events out. The caller subscribes, publishes and stamps.
package follow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

// Alarm codes the follower raises (as tablebus.Fault events).
const (
	AlarmMismatch = "engine-mismatch" // the daemon's account differs from the engine's
	AlarmRule     = "engine-rule"     // a card or decision the engine's rules refuse
	AlarmGap      = "engine-gap"      // an event missing from the feed
)

// Follower follows one table's feed with its own engine.
type Follower struct {
	eng     games.Engine
	manage  func(games.Engine, games.Action) (any, error)
	inRound bool
	round   uint64
	last    uint64 // the last seq applied
	mine    *games.Outcome
	broken  bool // the round could not be followed; wait for the next one
}

// New returns a follower with its own engine. manage applies the table's between-rounds actions
// (catalog.Manage; nil for games without any).
func New(eng games.Engine, manage func(games.Engine, games.Action) (any, error)) *Follower {
	return &Follower{eng: eng, manage: manage}
}

func out(src tablebus.Event, t tablebus.Type) tablebus.Event {
	return tablebus.Event{Type: t, Shoe: src.Shoe, Round: src.Round, TS: src.TS, Ref: src.Seq}
}

func alarm(src tablebus.Event, code, format string, a ...any) tablebus.Event {
	e := out(src, tablebus.Fault)
	e.Code, e.Problem, e.Hold = code, fmt.Sprintf(format, a...), true
	return e
}

// cardAlarm is an alarm about the source's card: the card and its position go in their fields,
// never in the words (RULES.md §1 "Hidden cards": the card may be face down).
func cardAlarm(src tablebus.Event, code, format string, a ...any) tablebus.Event {
	e := alarm(src, code, format, a...)
	e.Card, e.Pos = src.Card, src.Pos
	return e
}

// words says an engine's refusal without the card or the cards it names: a RuleError's What
// is the card refused, or the decision with its cards.
func words(err error) string {
	var re *games.RuleError
	if !errors.As(err, &re) {
		return err.Error()
	}
	w := *re
	w.What, _ = tablebus.SplitDecision(re.What)
	if _, cerr := card.Parse(strings.TrimPrefix(re.What, "burn ")); cerr == nil {
		w.What = "the card"
	}
	return w.Error()
}

// Apply takes the next event of the daemon's secure feed and returns the engine's own events:
// guidance, results and settlements, or alarms. Events must come in sequence order; an
// event already applied is ignored.
func (f *Follower) Apply(e tablebus.Event) []tablebus.Event {
	if e.Seq != 0 && e.Seq <= f.last {
		return nil
	}
	var res []tablebus.Event
	if f.last != 0 && e.Seq != f.last+1 {
		res = append(res, alarm(e, AlarmGap, "events %d to %d are missing from the feed", f.last+1, e.Seq-1))
		if f.inRound {
			f.broken = true
		}
	}
	f.last = e.Seq
	switch e.Type {
	case tablebus.ShoeLoaded:
		// A game with state across shoes (the chemin de fer bank) publishes it with every
		// shoe: an engine that joins late, or lost track, starts again from it.
		if p, ok := f.eng.(games.Persistent); ok && len(e.EngineState) > 0 {
			if err := p.Restore(e.EngineState); err != nil {
				return append(res, alarm(e, AlarmMismatch, "the shoe's game state cannot be restored: %v", err))
			}
		}
	case tablebus.TableAction:
		if f.manage == nil {
			return append(res, alarm(e, AlarmRule, "a table action (%s) for a game without any", e.Choice))
		}
		if _, err := f.manage(f.eng, games.Action{Action: e.Choice, Seat: e.Seat, Amount: e.Amount}); err != nil {
			return append(res, alarm(e, AlarmMismatch, "the daemon applied %s by seat %d; the engine refuses it: %v", e.Choice, e.Seat, err))
		}
		if p, ok := f.eng.(games.Persistent); ok && len(e.EngineState) > 0 {
			mine, err := p.Snapshot()
			if err != nil || !bytes.Equal(mine, e.EngineState) {
				res = append(res, alarm(e, AlarmMismatch, "after %s the daemon's game state differs from the engine's", e.Choice))
			}
		}
	case tablebus.RoundOpened:
		f.inRound, f.round, f.mine, f.broken = false, e.Round, nil, false
		if err := f.eng.Begin(tablebus.GameBets(e.Bets)); err != nil {
			return append(res, alarm(e, AlarmRule, "round %d: the engine refuses the bets: %v", e.Round, err))
		}
		f.inRound = true
		return append(res, f.guide(e, nil))
	case tablebus.CardDealt, tablebus.Burn:
		if !f.inRound || f.broken || e.Round != f.round || e.Card == nil {
			return res // a shoe burn, or a round this follower cannot follow
		}
		need := f.eng.Need()
		var step games.Step
		var err error
		switch {
		case e.Type == tablebus.Burn && need.Kind == games.NeedBurn:
			step, err = f.eng.Burn(*e.Card)
		case e.Type == tablebus.CardDealt && need.Kind == games.NeedCard:
			if e.To == nil || *e.To != tablebus.PlaceOf(need.To) {
				res = append(res, cardAlarm(e, AlarmMismatch, "round %d: the card went to %v; the engine expected it for %s", e.Round, e.To, need.To))
			}
			if e.Face == nil || *e.Face != tablebus.FaceOf(need.Face) {
				res = append(res, cardAlarm(e, AlarmMismatch, "round %d: the card dealt face %v; the engine deals it face %s", e.Round, e.Face, need.Face))
			}
			step, err = f.eng.Card(*e.Card)
		case e.Type == tablebus.CardDealt && need.Kind == games.NeedDecision:
			step, err = f.eng.Card(*e.Card)
		default:
			err = fmt.Errorf("a %s when the engine needs %s", e.Type, need)
		}
		if err != nil {
			f.broken = true
			return append(res, cardAlarm(e, AlarmRule, "round %d: %s", e.Round, words(err)))
		}
		return append(res, f.after(e, step)...)
	case tablebus.Decision:
		if !f.inRound || f.broken || e.Round != f.round {
			return res
		}
		step, err := f.eng.Decide(e.Seat, e.GameDecision())
		if err != nil {
			f.broken = true
			a := alarm(e, AlarmRule, "round %d: %s", e.Round, words(err))
			a.Cards = e.Cards
			return append(res, a)
		}
		return append(res, f.after(e, step)...)
	case tablebus.RoundVoided:
		f.inRound, f.mine = false, nil
	case tablebus.RoundResult:
		if f.inRound && !f.broken && e.Round == f.round {
			f.broken = true
			return append(res, alarm(e, AlarmMismatch, "round %d: the daemon gave the result while the engine still needs %s", e.Round, f.eng.Need()))
		}
		if f.mine != nil && e.Round == f.round {
			// The daemon marks the cards that stayed face down; the engine knows nothing of faces.
			theirs := tablebus.Event{Result: e.Result, Hands: unmarked(e.Hands), Dealer: e.Dealer}
			if e.Dealer != nil {
				theirs.Dealer = &unmarked([]tablebus.Hand{*e.Dealer})[0]
			}
			r, _, _ := tablebus.ResultOf(f.mine)
			mine := tablebus.Event{Result: r.Result, Hands: r.Hands, Dealer: r.Dealer}
			if !sameJSON(theirs, mine) {
				res = append(res, alarm(e, AlarmMismatch, "round %d: the daemon's result differs from the engine's", e.Round))
			}
		}
	case tablebus.RoundSettled:
		if f.inRound && !f.broken && e.Round == f.round {
			f.broken = true
			return append(res, alarm(e, AlarmMismatch, "round %d: the daemon settled the round while the engine still needs %s", e.Round, f.eng.Need()))
		}
		if f.mine != nil && e.Round == f.round {
			if !sameJSON(e.Settle, tablebus.SettlementsOf(f.mine.Settlements)) {
				res = append(res, alarm(e, AlarmMismatch, "round %d: the daemon's settlement differs from the engine's", e.Round))
			}
			f.mine = nil
		}
	}
	return res
}

func (f *Follower) after(e tablebus.Event, step games.Step) []tablebus.Event {
	if f.eng.Need().Kind != games.NeedDone {
		return []tablebus.Event{f.guide(e, step.Say)}
	}
	f.inRound = false
	o, err := f.eng.Outcome()
	if err != nil {
		return []tablebus.Event{alarm(e, AlarmRule, "round %d: no outcome: %v", e.Round, err)}
	}
	f.mine = o
	res, set, err := tablebus.ResultOf(o)
	if err != nil {
		return []tablebus.Event{alarm(e, AlarmRule, "round %d: %v", e.Round, err)}
	}
	r := out(e, tablebus.RoundResult)
	r.Game, r.Result, r.Hands, r.Dealer, r.Detail = f.eng.Game(), res.Result, res.Hands, res.Dealer, res.Detail
	s := out(e, tablebus.RoundSettled)
	s.Settle, s.Net = set.Settle, set.Net
	g := out(e, tablebus.Guide)
	g.Say, g.Msgs = games.Words(step.Say), tablebus.MsgsOf(step.Say)
	return []tablebus.Event{r, s, g}
}

func (f *Follower) guide(e tablebus.Event, say []games.Msg) tablebus.Event {
	g := out(e, tablebus.Guide)
	n := tablebus.NeedOf(f.eng.Need())
	g.Need, g.Say, g.Msgs = &n, games.Words(say), tablebus.MsgsOf(say)
	return g
}

// unmarked returns the hands without the daemon's marks of the cards that stayed face down.
func unmarked(hs []tablebus.Hand) []tablebus.Hand {
	out := make([]tablebus.Hand, len(hs))
	for i, h := range hs {
		h.Down = nil
		out[i] = h
	}
	if hs == nil {
		return nil
	}
	return out
}

func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
