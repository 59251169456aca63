package baccarat

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
)

// The spots of the layout (RULES.md §8 "Spots: baccarat player, banker, tie, player-pair,
// banker-pair").
const (
	SpotPlayer     = "player"
	SpotBanker     = "banker"
	SpotTie        = "tie"
	SpotPlayerPair = "player-pair"
	SpotBankerPair = "banker-pair"
	// SpotBank is the chemin de fer banker's stake in Outcome.Settlements: the part of the bank
	// the punters covered. It is not a spot anyone bets on.
	SpotBank = "bank"
)

// The results of a coup (RULES.md §8: "Baccarat's result is player, banker or tie").
const (
	ResultPlayer = "player"
	ResultBanker = "banker"
	ResultTie    = "tie"
)

// The commission of RULES.md §2.
const (
	// CommissionPercent is the house's share of a winning banker bet (RULES.md §2 "banker pays
	// 0.95:1 (5% commission)"; chemin de fer "the house takes 5% of the banker's winnings").
	CommissionPercent = 5
)

// MaxStake bounds one bet, in cents, so that no payout can overflow int64 whatever the table's
// limits (a tie at 8:1 on MaxStake is far inside the range).
const MaxStake int64 = 1 << 40

// Commission is the house's commission on a banker win of win cents: 5%, rounded down to the
// cent. Rounding down is the reading of RULES.md §2 that never charges a player more than the
// posted 5% (a banker bet of 110 cents wins 105: the commission of 5.5 cents is 5); rounding up,
// or a minimum commission, raises the banker bet's house edge above its published 1.06% (888
// Casino, "The banker bet", on the $1 minimum commission at $10 tables).
func Commission(win int64) int64 { return win * CommissionPercent / 100 }

// Options an engine accepts in games.Config.Options.
const (
	// OptLimits selects one of seed 003's three table ranges, in euros: "1-100", "5-500" or
	// "25-1000". It sets the player, banker and tie limits (and the tie minimum with other
	// bets); limits given in games.Config.Limits override it spot by spot.
	OptLimits = "limits"
	// OptTieMinWithBet is the tie minimum, in cents, for a seat that also bets on player or
	// banker in the same coup (seed 003 "Apuesta mínima para empate con otras apuestas"); the
	// tie limit's Min applies otherwise.
	OptTieMinWithBet = "tie-min-with-bet"
	// OptPayTable is how player and banker are paid: "standard" (the default, the banker's
	// 5% commission), "ez" (EZ Baccarat) or "super6" (Super 6): RULES.md §2 "Pay tables".
	OptPayTable = "paytable"
	// OptSideBets lists the side bets the table offers besides the tie and the pairs, by name
	// separated by commas: dragon-7, panda-8, lucky-6, dragon-bonus (spots player-dragon and
	// banker-dragon), either-pair, perfect-pair; "none" for none. Default: the pay table's
	// own (DefaultSideBets).
	OptSideBets = "side-bets"
	// OptHeavySideBet is for surveillance, not for play: the least side bet, in percent of the
	// seat's player and banker stakes in the coup, that the live odds report when the side bet
	// favours the player ("50%"; default: the view's, 50%). See cmd/internal/floor.
	OptHeavySideBet = "heavy-side-bet"
)

// SeedLimits returns the limits of one of seed 003's ranges ("1-100", "5-500", "25-1000"), in
// cents, and the tie minimum that applies with other bets.
//
// Seed 003, "Apuestas y límites": 1–100 (tie 1–10, 1 with other bets), 5–500 (tie 5–60, 1 with
// other bets), 25–1,000 (tie 25–120, 5 with other bets). The pairs are not in seed 003 and get
// no limit from it.
func SeedLimits(name string) ([]games.Limit, int64, error) {
	var min, max, tieMin, tieMax, tieWith int64
	switch name {
	case "1-100":
		min, max, tieMin, tieMax, tieWith = 1, 100, 1, 10, 1
	case "5-500":
		min, max, tieMin, tieMax, tieWith = 5, 500, 5, 60, 1
	case "25-1000":
		min, max, tieMin, tieMax, tieWith = 25, 1000, 25, 120, 5
	default:
		return nil, 0, fmt.Errorf("baccarat: unknown table range %q (seed 003: 1-100, 5-500, 25-1000)", name)
	}
	const eur = 100
	return []games.Limit{
		{Spot: SpotPlayer, Min: min * eur, Max: max * eur},
		{Spot: SpotBanker, Min: min * eur, Max: max * eur},
		{Spot: SpotTie, Min: tieMin * eur, Max: tieMax * eur},
	}, tieWith * eur, nil
}

// choice is a chemin de fer option's answer.
type choice uint8

const (
	undecided choice = iota
	chooseDraw
	chooseStand
)

// Engine is one table of the baccarat family. It is reused coup after coup: Begin starts a new
// coup; only the chemin de fer bank survives from one coup to the next.
type Engine struct {
	v       Variant
	cfg     games.Config
	tieWith int64 // OptTieMinWithBet, 0 when unset
	table   PayTable
	sides   []string // OptSideBets
	heavy   int      // OptHeavySideBet, percent; 0 when unset

	squeezing   bool   // OptSqueeze (squeeze.go)
	squeeze     [2]int // the seats squeezing the player's and the banker's cards, 0 for none
	down, shown []bool // per card in deal order: dealt face down to be squeezed; turned up

	begun          bool
	bets           []games.Bet
	player, banker []card.Card
	order          []string // "player"/"banker" per card, in deal order
	punterChoice   choice
	bankerChoice   choice

	// chemin de fer
	bank   *Bank
	punter int           // the seat that plays the punter's hand and holds its option
	stake  int64         // the punters' stakes together: the part of the bank in play
	banco  int           // the seat that called banco (covered the whole bank), 0 if none
	settle *CheminDetail // the bank's settlement, made when the coup completes
}

var _ games.Engine = (*Engine)(nil)

// New makes an engine for cfg.Game ("punto-banco", "baccarat" or "chemin-de-fer"). Options:
// OptLimits and OptTieMinWithBet for every variant, and the chemin de fer options of NewBank.
func New(cfg games.Config) (*Engine, error) {
	v, err := ParseVariant(cfg.Game)
	if err != nil {
		return nil, err
	}
	if cfg.Rules != "" {
		return nil, fmt.Errorf("baccarat: %s has no rule presets (got %q)", cfg.Game, cfg.Rules)
	}
	e := &Engine{v: v, cfg: cfg}
	e.cfg.Limits = append([]games.Limit(nil), cfg.Limits...)
	bankOpts := map[string]string{}
	sides := ""
	sideGiven := false
	for k, val := range cfg.Options {
		switch k {
		case OptLimits:
			ls, with, err := SeedLimits(val)
			if err != nil {
				return nil, err
			}
			for _, l := range ls {
				if _, ok := cfg.Limit(l.Spot); !ok {
					e.cfg.Limits = append(e.cfg.Limits, l)
				}
			}
			if _, ok := cfg.Options[OptTieMinWithBet]; !ok {
				e.tieWith = with
			}
		case OptTieMinWithBet:
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("baccarat: option %s: %q is not a positive number of cents", k, val)
			}
			e.tieWith = n
		case OptHeavySideBet:
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(val), "%"))
			if err != nil || n <= 0 || n > 100_000 {
				return nil, fmt.Errorf("baccarat: option %s: %q is not a percentage from 1%% to 100000%%", k, val)
			}
			e.heavy = n
		case OptSqueeze:
			if v == CheminDeFer {
				return nil, fmt.Errorf("baccarat: option %q is not for chemin-de-fer: its first four cards are dealt face down already (RULES.md §2)", k)
			}
			switch val {
			case "on":
				e.squeezing = true
			case "off":
			default:
				return nil, fmt.Errorf("baccarat: option %s: %q (want on or off)", k, val)
			}
		case OptPayTable, OptSideBets:
			if v == CheminDeFer {
				return nil, fmt.Errorf("baccarat: option %q is not for chemin-de-fer: the punters bet only against the bank (RULES.md §2)", k)
			}
			if k == OptSideBets {
				sides, sideGiven = val, true
				break
			}
			t, err := ParsePayTable(val)
			if err != nil {
				return nil, err
			}
			e.table = t
		case OptBanker, OptBank, OptSeats, OptBankMin:
			if v != CheminDeFer {
				return nil, fmt.Errorf("baccarat: option %q is for chemin-de-fer only", k)
			}
			bankOpts[k] = val
		default:
			return nil, fmt.Errorf("baccarat: unknown option %q for %s", k, cfg.Game)
		}
	}
	e.sides = DefaultSideBets(e.table)
	if sideGiven {
		ss, err := ParseSideBets(sides)
		if err != nil {
			return nil, err
		}
		e.sides = ss
	}
	for _, l := range e.cfg.Limits {
		if l.Min <= 0 || l.Max < l.Min {
			return nil, fmt.Errorf("baccarat: limit for %s: %d–%d is not a range of positive cents", l.Spot, l.Min, l.Max)
		}
	}
	if v == CheminDeFer {
		b, err := NewBank(bankOpts, e.cfg)
		if err != nil {
			return nil, err
		}
		e.bank = b
	}
	return e, nil
}

// Game returns the RULES.md game id.
func (e *Engine) Game() string { return e.v.String() }

// Rules returns "": the family has no presets.
func (e *Engine) Rules() string { return "" }

// Variant returns the engine's game.
func (e *Engine) Variant() Variant { return e.v }

// PayTable returns the table's pay table (OptPayTable).
func (e *Engine) PayTable() PayTable { return e.table }

// HeavySideBet returns option OptHeavySideBet in percent, or 0 when the table leaves it to the
// view.
func (e *Engine) HeavySideBet() int { return e.heavy }

// SideSpots returns the spots of the side bets the table offers (OptSideBets), in layout order.
func (e *Engine) SideSpots() []string { return sideSpots(e.sides) }

// Spots returns the spots the table takes bets on, in layout order.
func (e *Engine) Spots() []string { return e.spots() }

// Limits returns the table's limits in force: games.Config.Limits, then the seed range of
// OptLimits for the spots they leave out.
func (e *Engine) Limits() []games.Limit { return slices.Clone(e.cfg.Limits) }

func (e *Engine) spots() []string {
	switch e.v {
	case Baccarat:
		return append([]string{SpotPlayer, SpotBanker, SpotPlayerPair, SpotBankerPair}, sideSpots(e.sides)...)
	case CheminDeFer:
		return []string{SpotPlayer}
	}
	return append([]string{SpotPlayer, SpotBanker, SpotTie, SpotPlayerPair, SpotBankerPair}, sideSpots(e.sides)...)
}

var _ games.Layout = (*Engine)(nil)

// SetLimits replaces the limits from the next coup on (a supervisor's change): the tie's lower
// minimum with other bets (OptTieMinWithBet, seed 003) stays as configured.
func (e *Engine) SetLimits(ls []games.Limit) error {
	cfg, err := e.cfg.WithLimits(ls, e.spots())
	if err != nil {
		return err
	}
	e.cfg = cfg
	return nil
}

// Begin starts a new coup with bets. It checks each spot, one bet per seat and spot, the
// table's limits (seed 003) and, in chemin de fer, the bank (see Bank).
func (e *Engine) Begin(bets []games.Bet) error {
	game := e.Game()
	spots := e.spots()
	type key struct {
		seat int
		spot string
	}
	seen := map[key]bool{}
	withMain := map[int]bool{}
	for _, b := range bets {
		if b.Spot == SpotPlayer || b.Spot == SpotBanker {
			withMain[b.Seat] = true
		}
	}
	for _, b := range bets {
		what := fmt.Sprintf("%s %d", b.Spot, b.Amount)
		known := false
		for _, s := range spots {
			known = known || s == b.Spot
		}
		if !known {
			rule := fmt.Sprintf("unknown spot (%s takes %s)", game, strings.Join(spots, ", "))
			switch {
			case b.Spot == SpotTie && e.v == Baccarat:
				rule = "baccarat has no tie bet: a tie voids the coup (RULES.md §2, seed 000)"
			case slices.Contains(sideSpots([]string{SideDragonBonus, SpotDragon7, SpotPanda8, SpotLucky6, SpotEitherPair, SpotPerfectPair}), b.Spot):
				rule = fmt.Sprintf("this table does not offer %s (option %s; it takes %s)", b.Spot, OptSideBets, strings.Join(spots, ", "))
			case e.v == CheminDeFer && b.Spot != "":
				rule = "chemin de fer punters bet only against the bank, on \"player\"; the bank is the banker's stake (RULES.md §2, seed 000)"
			}
			return &games.RuleError{Game: game, Seat: b.Seat, What: what, Rule: rule}
		}
		k := key{b.Seat, b.Spot}
		if seen[k] {
			return &games.RuleError{Game: game, Seat: b.Seat, What: what, Rule: "a second bet on the same spot: one bet per seat and spot"}
		}
		seen[k] = true
		cfg := e.cfg
		if b.Spot == SpotTie && e.tieWith > 0 && withMain[b.Seat] {
			// seed 003: a lower tie minimum when the seat also bets on player or banker.
			if l, ok := cfg.Limit(SpotTie); ok {
				cfg.Limits = []games.Limit{{Spot: SpotTie, Min: min(l.Min, e.tieWith), Max: l.Max}}
			}
		}
		if err := cfg.CheckBet(b); err != nil {
			return err
		}
		if b.Amount > MaxStake {
			return &games.RuleError{Game: game, Seat: b.Seat, What: what, Rule: fmt.Sprintf("over the engine's largest stake %d cents", MaxStake)}
		}
	}
	if e.v == CheminDeFer {
		punter, stake, banco, err := e.bank.cover(game, bets)
		if err != nil {
			return err
		}
		e.punter, e.stake, e.banco = punter, stake, banco
	}
	e.bets = append(e.bets[:0], bets...)
	e.player, e.banker, e.order = e.player[:0], e.banker[:0], e.order[:0]
	e.punterChoice, e.bankerChoice = undecided, undecided
	e.settle = nil
	e.down, e.shown = e.down[:0], e.shown[:0]
	e.squeeze = [2]int{}
	if e.squeezing {
		e.squeeze[0], e.squeeze[1] = squeezers(bets)
	}
	e.begun = true
	return nil
}

func cardTo(name string, f games.Face) games.Need {
	return games.Need{Kind: games.NeedCard, To: games.Place{Name: name}, Face: f}
}

// face is how the first four cards are dealt: face up in punto banco and baccarat (RULES.md §2:
// baccarat is "as punto banco"); face down in chemin de fer, where the punter and the banker look
// at their own hands and each one's option depends on what the other cannot see (RULES.md §1
// "Hidden cards"), until the coup ends. Third cards are dealt face up. A squeeze table deals a
// hand's cards face down to its squeezer (cardFace).
func (e *Engine) face() games.Face {
	if e.v == CheminDeFer {
		return games.FaceDown
	}
	return games.FaceUp
}

// state works out what the coup waits for, and why a card is not allowed when it waits for
// none: the tableau's reason in the dealer's words.
func (e *Engine) state() (games.Need, string) {
	done := games.Need{Kind: games.NeedDone}
	if !e.begun {
		return done, "no coup in progress (Begin starts one)"
	}
	np, nb := len(e.player), len(e.banker)
	if np+nb < 4 { // RULES.md §2: player, banker, player, banker
		if (np+nb)%2 == 0 {
			return cardTo(SpotPlayer, e.cardFace(SpotPlayer, false)), ""
		}
		return cardTo(SpotBanker, e.cardFace(SpotBanker, false)), ""
	}
	if i := e.pendingReveal(); i >= 0 { // squeeze: the cards read wait for their reveal
		return e.revealNeed(i)
	}
	pt, bt := Total(e.player[:2]), Total(e.banker[:2])
	if Natural(pt) || Natural(bt) { // rule 1
		return done, fmt.Sprintf("dealer error: natural %d, both hands stand", max(pt, bt))
	}
	p3 := -1
	if np == 2 {
		switch PlayerAction(e.v, pt) {
		case Draw:
			return cardTo(SpotPlayer, e.cardFace(SpotPlayer, true)), ""
		case Option:
			switch e.punterChoice {
			case undecided:
				return games.Need{Kind: games.NeedDecision, Seat: e.punter, Options: []string{"draw", "stand"}},
					fmt.Sprintf("dealer error: waiting for seat %d to draw or stand on 5", e.punter)
			case chooseDraw:
				return cardTo(SpotPlayer, e.cardFace(SpotPlayer, true)), ""
			}
		}
	} else {
		p3 = e.player[2].BaccaratValue()
	}
	if nb == 2 {
		switch BankerAction(e.v, bt, p3) {
		case Draw:
			return cardTo(SpotBanker, e.cardFace(SpotBanker, true)), ""
		case Option:
			switch e.bankerChoice {
			case undecided:
				return games.Need{Kind: games.NeedDecision, Seat: e.bank.Banker, Options: []string{"draw", "stand"}},
					fmt.Sprintf("dealer error: waiting for the banker (seat %d) to draw or stand on %d", e.bank.Banker, bt)
			case chooseDraw:
				return cardTo(SpotBanker, e.cardFace(SpotBanker, true)), ""
			}
		}
		return done, fmt.Sprintf("dealer error: banker stands on %d", bt)
	}
	return done, "dealer error: the coup is complete, banker has drawn its third card"
}

// Need says what the coup waits for: a card to "player" or "banker", a chemin de fer option, or
// nothing (NeedDone).
func (e *Engine) Need() games.Need {
	n, _ := e.state()
	return n
}

// Card applies the next card out of the shoe. A card the tableau does not allow is a
// *games.RuleError (games.OutOfTurn, "dealer error: …") and changes nothing.
func (e *Engine) Card(c card.Card) (games.Step, error) {
	if !c.Valid() {
		return games.Step{}, &games.RuleError{Game: e.Game(), What: c.String(), Rule: "not a card"}
	}
	n, why := e.state()
	if n.Kind != games.NeedCard {
		return games.Step{}, games.OutOfTurn(e.Game(), c, why)
	}
	if n.To.Name == SpotPlayer {
		e.player = append(e.player, c)
	} else {
		e.banker = append(e.banker, c)
	}
	e.order = append(e.order, n.To.Name)
	e.down = append(e.down, e.squeezing && n.Face == games.FaceDown)
	e.shown = append(e.shown, false)
	e.complete()
	return e.step(), nil
}

// Burn refuses every burn: a baccarat coup burns nothing (RULES.md §1 burns at the start of the
// shoe only).
func (e *Engine) Burn(c card.Card) (games.Step, error) {
	return games.Step{}, &games.RuleError{Game: e.Game(), What: "burn " + c.String(),
		Rule: "a baccarat coup burns no card (RULES.md §1: the burn is at the start of the shoe)"}
}

// Decide applies a chemin de fer option: "draw" or "stand" (RULES.md §8), from the seat asked.
func (e *Engine) Decide(seat int, d string) (games.Step, error) {
	n, _ := e.state()
	if n.Kind != games.NeedDecision {
		rule := "no decision is asked now"
		if e.v != CheminDeFer && !e.squeezing {
			rule = e.Game() + " has no decisions: the tableau is fixed (RULES.md §2)"
		}
		return games.Step{}, &games.RuleError{Game: e.Game(), Seat: seat, What: d, Rule: rule}
	}
	if seat != n.Seat {
		return games.Step{}, &games.RuleError{Game: e.Game(), Seat: seat, What: d,
			Rule: fmt.Sprintf("not this seat's turn: the option is seat %d's", n.Seat)}
	}
	if i := e.pendingReveal(); i >= 0 {
		return e.reveal(seat, i, d)
	}
	var ch choice
	switch d {
	case "draw":
		ch = chooseDraw
	case "stand":
		ch = chooseStand
	default:
		return games.Step{}, &games.RuleError{Game: e.Game(), Seat: seat, What: d, Rule: "the option is \"draw\" or \"stand\" (RULES.md §8)"}
	}
	if len(e.player) == 2 && e.punterChoice == undecided {
		e.punterChoice = ch
	} else {
		e.bankerChoice = ch
	}
	e.complete()
	return e.step(), nil
}

// step says, after a card or a decision, what happens next in the dealer's words.
func (e *Engine) step() games.Step {
	var st games.Step
	n, _ := e.state()
	np, nb := len(e.player), len(e.banker)
	if np+nb < 4 {
		st.Say = []games.Msg{games.NeedMsg(games.Need{Kind: games.NeedCard, To: n.To})}
		return st
	}
	if i := e.pendingReveal(); i >= 0 {
		st.Say = e.revealSay(i)
		return st
	}
	pt, bt := Total(e.player[:2]), Total(e.banker[:2])
	switch {
	case np+nb == 4 && (Natural(pt) || Natural(bt)):
		if Natural(pt) && Natural(bt) && pt != bt {
			st.Say = append(st.Say, games.M("bac.natural-to", games.N("a", max(pt, bt)), games.N("b", min(pt, bt))))
		} else {
			st.Say = append(st.Say, games.M("bac.natural", games.N("a", max(pt, bt))))
		}
	case np == 2 && nb == 2:
		switch {
		case n.Kind == games.NeedCard && n.To.Name == SpotPlayer:
			st.Say = append(st.Say, games.M("bac.player-draws"))
		case n.Kind == games.NeedDecision && e.punterChoice == undecided:
			st.Say = append(st.Say, games.M("bac.punter-option", games.N("total", pt)))
		default:
			st.Say = append(st.Say, games.M("bac.player-stands", games.N("total", pt)))
			st.Say = append(st.Say, e.bankerSay(bt, n)...)
		}
	case nb == 2:
		st.Say = append(st.Say, e.bankerSay(bt, n)...)
	}
	if n.Kind == games.NeedDone {
		pf, bf := Total(e.player), Total(e.banker)
		switch {
		case pf > bf:
			st.Say = append(st.Say, games.M("bac.player-wins", games.N("a", pf), games.N("b", bf)))
		case bf > pf:
			st.Say = append(st.Say, games.M("bac.banker-wins", games.N("a", bf), games.N("b", pf)))
		default:
			st.Say = append(st.Say, games.M("bac.tie", games.N("a", pf), games.N("b", bf)))
			if e.v == Baccarat {
				st.Say = append(st.Say, games.M("bac.tie-void"))
			}
		}
		if e.v == CheminDeFer { // the first four cards were dealt face down
			st.Reveal = []int{0, 1, 2, 3}
		}
	}
	return st
}

func (e *Engine) bankerSay(bt int, n games.Need) []games.Msg {
	switch {
	case n.Kind == games.NeedCard && n.To.Name == SpotBanker:
		return []games.Msg{games.M("bac.banker-draws")}
	case n.Kind == games.NeedDecision:
		return []games.Msg{games.M("bac.banker-option", games.N("total", bt))}
	}
	return []games.Msg{games.M("bac.banker-stands", games.N("total", bt))}
}

// ErrIncomplete is wrapped by Outcome's error while the coup is still waiting for something.
var ErrIncomplete = errors.New("baccarat: coup not complete")

// Result returns the coup's result, "player", "banker" or "tie", once it is complete.
func (e *Engine) Result() (string, error) {
	if n, _ := e.state(); !e.begun || n.Kind != games.NeedDone {
		return "", fmt.Errorf("%w: waiting for %s", ErrIncomplete, n)
	}
	pf, bf := Total(e.player), Total(e.banker)
	switch {
	case pf > bf:
		return ResultPlayer, nil
	case bf > pf:
		return ResultBanker, nil
	}
	return ResultTie, nil
}

func pair(h []card.Card) bool { return h[0].Rank() == h[1].Rank() }

// Outcome settles the complete coup (RULES.md §2 pay table, §8 output): hands "player" and
// "banker" with their totals, result "player", "banker" or "tie", and one settlement per bet in
// the order Begin got them (chemin de fer adds the banker's stake, spot "bank", last).
func (e *Engine) Outcome() (*games.Outcome, error) {
	if !e.begun {
		return nil, fmt.Errorf("%w: no coup begun", ErrIncomplete)
	}
	res, err := e.Result()
	if err != nil {
		return nil, err
	}
	o := &games.Outcome{Game: e.Game(), CardsUsed: len(e.player) + len(e.banker), Result: res}
	po, bo := "lose", "lose"
	switch res {
	case ResultPlayer:
		po = "win"
	case ResultBanker:
		bo = "win"
	default:
		po, bo = "tie", "tie"
	}
	o.Hands = []games.Hand{
		{Name: SpotPlayer, Cards: append([]card.Card(nil), e.player...), Total: Total(e.player), Outcome: po},
		{Name: SpotBanker, Cards: append([]card.Card(nil), e.banker...), Total: Total(e.banker), Outcome: bo},
	}
	o.Settlements = make([]games.Settlement, 0, len(e.bets)+1)
	sum := e.summary()
	for _, b := range e.bets {
		o.Settlements = append(o.Settlements, games.Settlement{Seat: b.Seat, Spot: b.Spot, Amount: b.Amount, Net: e.net(b, sum)})
	}
	if d := e.settle; d != nil {
		o.Settlements = append(o.Settlements, games.Settlement{Seat: d.Banker, Spot: SpotBank, Amount: d.Stake, Net: d.net})
		o.Detail = *d
	}
	return o, nil
}

// summary is what the pay tables read of the complete coup.
func (e *Engine) summary() Summary {
	return Summary{Player: Total(e.player), Banker: Total(e.banker),
		PlayerDrew: len(e.player) > 2, BankerDrew: len(e.banker) > 2,
		PlayerPair: pair(e.player), BankerPair: pair(e.banker),
		PlayerPerfect: e.player[0] == e.player[1], BankerPerfect: e.banker[0] == e.banker[1]}
}

// net is what bet b wins (positive) or loses (negative) in the coup s: RULES.md §2 pay tables.
func (e *Engine) net(b games.Bet, s Summary) int64 {
	return PayOf(e.v, e.table, b.Spot, s).Net(b.Amount)
}
