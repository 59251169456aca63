package trente

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
)

// Game is the RULES.md game id.
const Game = "trente-et-quarante"

// The chances (RULES.md §8 spots) and rows.
const (
	Rouge   = "rouge"
	Noir    = "noir"
	Couleur = "couleur"
	Inverse = "inverse"
)

// Results besides "noir" and "rouge" (the winning row).
const (
	ResultRefait   = "refait"    // a tie at 32–40: every bet pushes
	ResultRefait31 = "refait-31" // a tie at 31: half of every stake, or prison
)

// Option names (games.Config.Options).
const (
	// OptTie31 is what a tie at 31 does: "half" (default: every bet loses half its stake) or
	// "prison" (RULES.md §3 "configurable: en prison instead").
	OptTie31 = "tie31"
)

// Target is the total a row is dealt to: 31 (RULES.md §3 "until its total is 31 or more").
const Target = 31

// MaxStake bounds one bet, in cents, far inside int64.
const MaxStake int64 = 1 << 40

// Value is a card's value in trente et quarante: ace 1, 2–10 pip, court cards 10 (RULES.md §3).
func Value(c card.Card) int { return c.PipValue() }

// RowTotal is the sum of a row's values.
func RowTotal(row []card.Card) int {
	t := 0
	for _, c := range row {
		t += Value(c)
	}
	return t
}

// Prisoner is a bet held in prison after a 31 tie (OptTie31 "prison").
type Prisoner struct {
	games.Bet
	Since int `json:"since"` // the coup (counted from 1 by this engine) that imprisoned it
}

// Detail is Outcome.Detail: the colour chance, the first card that decides it, and the prison.
type Detail struct {
	FirstCard card.Card `json:"first_card"`
	// Chance is the winning colour chance, "couleur" or "inverse"; "" on a refait.
	Chance string `json:"chance,omitempty"`
	// Imprisoned lists the bets this coup sent to prison; Prison the bets in prison after it.
	Imprisoned []Prisoner `json:"imprisoned,omitempty"`
	Prison     []Prisoner `json:"prison,omitempty"`
}

// Engine is one trente et quarante table. It is reused coup after coup; only the prison
// survives from one coup to the next.
type Engine struct {
	cfg    games.Config
	prison bool // OptTie31 == "prison"

	begun      bool
	coup       int
	bets       []games.Bet
	noir, rge  []card.Card
	held       []Prisoner // in prison before this coup
	settled    *games.Outcome
	prisonNext []Prisoner
}

var _ games.Engine = (*Engine)(nil)

// New makes a trente et quarante engine. Option OptTie31: "half" or "prison".
func New(cfg games.Config) (*Engine, error) {
	if cfg.Game != "" && cfg.Game != Game {
		return nil, fmt.Errorf("trente: unknown game %q (this package plays %s)", cfg.Game, Game)
	}
	if cfg.Rules != "" {
		return nil, fmt.Errorf("trente: %s has no rule presets (got %q)", Game, cfg.Rules)
	}
	cfg.Game = Game
	e := &Engine{cfg: cfg}
	for k, v := range cfg.Options {
		switch {
		case k == OptTie31 && v == "half":
		case k == OptTie31 && v == "prison":
			e.prison = true
		case k == OptTie31:
			return nil, fmt.Errorf("trente: option %s: %q is neither \"half\" nor \"prison\" (RULES.md §3)", k, v)
		default:
			return nil, fmt.Errorf("trente: unknown option %q", k)
		}
	}
	for _, l := range cfg.Limits {
		if l.Min <= 0 || l.Max < l.Min {
			return nil, fmt.Errorf("trente: limit for %s: %d–%d is not a range of positive cents", l.Spot, l.Min, l.Max)
		}
	}
	return e, nil
}

// Game returns "trente-et-quarante".
func (e *Engine) Game() string { return Game }

// Rules returns "": the game has no presets.
func (e *Engine) Rules() string { return "" }

// Prison returns the bets in prison now: after the last coup if it is complete.
func (e *Engine) Prison() []Prisoner {
	if e.settled != nil {
		return append([]Prisoner(nil), e.prisonNext...)
	}
	return append([]Prisoner(nil), e.held...)
}

var chances = []string{Rouge, Noir, Couleur, Inverse}

var _ games.Layout = (*Engine)(nil)

// Spots returns the layout's spots: the four chances.
func (e *Engine) Spots() []string { return slices.Clone(chances) }

// Limits returns the limits in force.
func (e *Engine) Limits() []games.Limit { return slices.Clone(e.cfg.Limits) }

// SetLimits replaces the limits from the next coup on.
func (e *Engine) SetLimits(ls []games.Limit) error {
	cfg, err := e.cfg.WithLimits(ls, chances)
	if err != nil {
		return err
	}
	e.cfg = cfg
	return nil
}

// Begin starts a coup with bets on the four chances, checked against the table's limits.
func (e *Engine) Begin(bets []games.Bet) error {
	type key struct {
		seat int
		spot string
	}
	seen := map[key]bool{}
	for _, b := range bets {
		what := fmt.Sprintf("%s %d", b.Spot, b.Amount)
		known := false
		for _, c := range chances {
			known = known || c == b.Spot
		}
		if !known {
			return &games.RuleError{Game: Game, Seat: b.Seat, What: what, Rule: "unknown spot (trente et quarante takes rouge, noir, couleur, inverse)"}
		}
		if seen[key{b.Seat, b.Spot}] {
			return &games.RuleError{Game: Game, Seat: b.Seat, What: what, Rule: "a second bet on the same spot: one bet per seat and spot"}
		}
		seen[key{b.Seat, b.Spot}] = true
		if err := e.cfg.CheckBet(b); err != nil {
			return err
		}
		if b.Amount > MaxStake {
			return &games.RuleError{Game: Game, Seat: b.Seat, What: what, Rule: fmt.Sprintf("over the engine's largest stake %d cents", MaxStake)}
		}
	}
	if e.settled != nil {
		e.held = e.prisonNext
	}
	e.coup++
	e.bets = append(e.bets[:0], bets...)
	e.noir, e.rge = e.noir[:0], e.rge[:0]
	e.settled, e.prisonNext = nil, nil
	e.begun = true
	return nil
}

func (e *Engine) state() (games.Need, string) {
	if !e.begun {
		return games.Need{Kind: games.NeedDone}, "no coup in progress (Begin starts one)"
	}
	if RowTotal(e.noir) < Target {
		return games.Need{Kind: games.NeedCard, To: games.Place{Name: Noir}}, ""
	}
	if t := RowTotal(e.rge); t < Target {
		return games.Need{Kind: games.NeedCard, To: games.Place{Name: Rouge}}, ""
	}
	return games.Need{Kind: games.NeedDone}, fmt.Sprintf("dealer error: rouge stands on %d, the coup is complete", RowTotal(e.rge))
}

// Need says which row the next card goes to, or NeedDone.
func (e *Engine) Need() games.Need {
	n, _ := e.state()
	return n
}

// Card deals the next card to the row that needs it. A card when both rows are complete is a
// *games.RuleError (games.OutOfTurn) and changes nothing.
func (e *Engine) Card(c card.Card) (games.Step, error) {
	if !c.Valid() {
		return games.Step{}, &games.RuleError{Game: Game, What: c.String(), Rule: "not a card"}
	}
	n, why := e.state()
	if n.Kind != games.NeedCard {
		return games.Step{}, games.OutOfTurn(Game, c, why)
	}
	var st games.Step
	if n.To.Name == Noir {
		e.noir = append(e.noir, c)
		if t := RowTotal(e.noir); t >= Target {
			st.Say = []games.Msg{games.M("trente.row", games.T("row", games.PlaceMsg(games.Place{Name: Noir})), games.N("total", t)),
				games.NeedMsg(games.Need{Kind: games.NeedCard, To: games.Place{Name: Rouge}})}
		}
		return st, nil
	}
	e.rge = append(e.rge, c)
	t := RowTotal(e.rge)
	if t < Target {
		return st, nil
	}
	st.Say = append(st.Say, games.M("trente.row", games.T("row", games.PlaceMsg(games.Place{Name: Rouge})), games.N("total", t)))
	o := e.settle()
	e.settled = o
	nt := RowTotal(e.noir)
	switch o.Result {
	case Noir, Rouge:
		d := o.Detail.(Detail)
		lose := Rouge
		if o.Result == Rouge {
			lose = Noir
		}
		st.Say = append(st.Say, games.M("trente.wins", games.T("row", games.PlaceMsg(games.Place{Name: o.Result})), games.N("a", min(nt, t)), games.N("b", max(nt, t))),
			games.M("trente.loses", games.T("chance", games.M("chance."+lose))), games.M("trente.chance-wins", games.T("chance", games.M("chance."+d.Chance))))
	case ResultRefait:
		st.Say = append(st.Say, games.M("trente.refait", games.N("total", t)))
	default:
		if e.prison {
			st.Say = append(st.Say, games.M("trente.refait31-prison"))
		} else {
			st.Say = append(st.Say, games.M("trente.refait31-half"))
		}
	}
	return st, nil
}

// Burn refuses every burn: a coup burns nothing (RULES.md §1: five cards at the start of the
// shoe).
func (e *Engine) Burn(c card.Card) (games.Step, error) {
	return games.Step{}, &games.RuleError{Game: Game, What: "burn " + c.String(),
		Rule: "a trente et quarante coup burns no card (RULES.md §1: the burn is at the start of the shoe)"}
}

// Decide refuses every decision: the game has none.
func (e *Engine) Decide(seat int, d string) (games.Step, error) {
	return games.Step{}, &games.RuleError{Game: Game, Seat: seat, What: d, Rule: "trente et quarante has no decisions (RULES.md §3)"}
}

// ErrIncomplete is wrapped by Outcome's error while the coup is not complete.
var ErrIncomplete = errors.New("trente: coup not complete")

// Outcome returns the settled coup: rows "noir" and "rouge" with their totals, the result (the
// winning row, "refait" or "refait-31"), one settlement per bet in Begin's order, then one per
// bet the prison released (spot "prison:<chance>").
func (e *Engine) Outcome() (*games.Outcome, error) {
	if e.settled == nil {
		n, _ := e.state()
		return nil, fmt.Errorf("%w: waiting for %s", ErrIncomplete, n)
	}
	o := *e.settled
	o.Hands = append([]games.Hand(nil), o.Hands...)
	o.Settlements = append([]games.Settlement(nil), o.Settlements...)
	return &o, nil
}

// wins reports whether a chance wins when row won and the noir row's first card is first.
func wins(chance, row string, first card.Card) bool {
	switch chance {
	case Rouge, Noir:
		return chance == row
	}
	match := first.Suit().Red() == (row == Rouge)
	return match == (chance == Couleur)
}

// settle computes the coup's outcome and the prison after it (RULES.md §3).
func (e *Engine) settle() *games.Outcome {
	nt, rt := RowTotal(e.noir), RowTotal(e.rge)
	first := e.noir[0]
	o := &games.Outcome{Game: Game, CardsUsed: len(e.noir) + len(e.rge)}
	d := Detail{FirstCard: first}
	no, ro := "lose", "lose"
	switch {
	case nt < rt:
		o.Result, no = Noir, "win"
	case rt < nt:
		o.Result, ro = Rouge, "win"
	case nt == Target:
		o.Result, no, ro = ResultRefait31, "refait", "refait"
	default:
		o.Result, no, ro = ResultRefait, "refait", "refait"
	}
	decided := o.Result == Noir || o.Result == Rouge
	if decided {
		d.Chance = Inverse
		if wins(Couleur, o.Result, first) {
			d.Chance = Couleur
		}
	}
	o.Hands = []games.Hand{
		{Name: Noir, Cards: append([]card.Card(nil), e.noir...), Total: nt, Outcome: no},
		{Name: Rouge, Cards: append([]card.Card(nil), e.rge...), Total: rt, Outcome: ro},
	}
	o.Settlements = make([]games.Settlement, 0, len(e.bets)+len(e.held))
	for _, b := range e.bets {
		s := games.Settlement{Seat: b.Seat, Spot: b.Spot, Amount: b.Amount}
		switch {
		case decided && wins(b.Spot, o.Result, first):
			s.Net = b.Amount
		case decided:
			s.Net = -b.Amount
		case o.Result == ResultRefait:
			s.Net = 0
		case e.prison:
			// The stake is held: it leaves the player now and comes back, as a
			// "prison:" settlement, if a later coup frees it.
			s.Net = -b.Amount
			p := Prisoner{Bet: b, Since: e.coup}
			d.Imprisoned = append(d.Imprisoned, p)
			e.prisonNext = append(e.prisonNext, p)
		default:
			s.Net = -(b.Amount / 2) // half the stake, an odd cent in the player's favour
		}
		o.Settlements = append(o.Settlements, s)
	}
	for _, p := range e.held {
		s := games.Settlement{Seat: p.Seat, Spot: "prison:" + p.Spot, Amount: p.Amount}
		switch {
		case decided && wins(p.Spot, o.Result, first):
			s.Net = p.Amount // freed: the stake comes back, without winnings
		case decided:
			s.Net = 0 // taken: the stake was already counted lost when it went in
		default:
			e.prisonNext = append(e.prisonNext, p) // another refait: it stays in prison
			continue
		}
		o.Settlements = append(o.Settlements, s)
	}
	d.Prison = append([]Prisoner(nil), e.prisonNext...)
	o.Detail = d
	return o
}

// String names a prisoner for logs: "seat 3 rouge 1000 (coup 7)".
func (p Prisoner) String() string {
	return strings.TrimSpace(fmt.Sprintf("seat %d %s %d (coup %d)", p.Seat, p.Spot, p.Amount, p.Since))
}
