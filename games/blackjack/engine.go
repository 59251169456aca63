package blackjack

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
)

// Game ids of RULES.md §4.
const (
	GameBlackjack   = "blackjack"
	GameChallenge21 = "challenge21"
)

// The decision codes of RULES.md §8.
const (
	CodeHit       = "H"
	CodeStand     = "S"
	CodeDouble    = "D"
	CodeSplit     = "P"
	CodeSurrender = "R"
	CodeInsure    = "I"
	CodeDecline   = "N"
	CodeEvenMoney = "E"
)

// MaxBet is the largest stake the engine accepts on one spot, in cents. It keeps every payout
// (25 times a stake at most) far inside int64.
const MaxBet = 1_000_000_000_000

// Spots of the layout (RULES.md §8).
const (
	SpotMain         = "main"
	SpotPerfectPairs = "perfect-pairs"
	SpotInsurance    = "insurance"
)

var roundSpots = []string{"round1", "round2", "round3"}

type phase uint8

const (
	phaseIdle phase = iota
	phaseDeal
	phaseInsurance
	phasePlay
	phaseDealer
	phaseDone
)

// hand is one hand of a box.
type hand struct {
	cards      []card.Card
	natural    bool // a blackjack: ace and ten as the first two cards of an unsplit hand
	split      bool // comes from a split
	aces       bool // a split ace dealt one card only (Rules.HitSplitAces off)
	acted      bool // a playing decision was taken (surrender only as the first)
	want       bool // H or D was decided: the next card is this hand's
	doubled    bool
	surrender  bool
	done       bool
	prize      Prize
	paidAtOnce bool // a blackjack paid at once (RULES.md §4 "blackjack paid at once")
}

func (h *hand) total() int { t, _ := Score(h.cards); return t }
func (h *hand) bust() bool { return h.total() > 21 }

// box is one occupied box: a seat's bets and its hands.
type box struct {
	seat int
	bets []int64 // per round: the stake of main (blackjack) or roundK (challenge21); 0 = none
	pp   int64   // perfect-pairs stake
	// first is the box's first two cards, kept apart from its hands: a split moves the second
	// card to a new hand and deals the first hand another, but perfect pairs is settled on the
	// cards the box was dealt (RULES.md §4, seed 000).
	first [2]card.Card
	hands []*hand
	ins   []int64 // per round: insurance taken
	even  []bool  // per round: even money taken
}

// Engine is a blackjack or Challenge 21 table (RULES.md §4): a pure state machine fed with the
// bets, the cards in the order they leave the shoe, and the players' decisions. It implements
// games.Engine.
type Engine struct {
	game   string
	rules  Rules
	decks  int
	cfg    games.Config
	set    map[string]bool // rule parameters the table's options changed
	spots  []string        // the round spots: main, or round1…round3
	nround int             // rounds this round plays: 1, or 2–3 in challenge21

	boxes            []*box
	dealer           []card.Card   // blackjack: the dealer's hand; challenge21: the base card
	drounds          [][]card.Card // challenge21: the dealer's hand of each round
	n                int           // cards applied this round (Step.Reveal indexes)
	hole             int           // round index of the hole card, -1 if none
	holeUp           bool
	phase            phase
	deal             []games.Place
	dealAt           int
	insBox, insRound int
	dround           int // the dealer round being drawn (challenge21), 0 in blackjack
	need             games.Need
	step             games.Step
	out              *games.Outcome
}

var _ games.Engine = (*Engine)(nil)

// New makes a blackjack table for cfg (cfg.Game "blackjack"): cfg.Rules names the preset
// ("" = classic), cfg.Decks the shoe (6 or 8, RULES.md §1; 0 = 6), cfg.Options changes single
// rule parameters (see OptionNames).
func New(cfg games.Config) (*Engine, error) {
	if cfg.Game == "" {
		cfg.Game = GameBlackjack
	}
	if cfg.Game != GameBlackjack {
		return nil, fmt.Errorf("blackjack: New makes game %q, not %q", GameBlackjack, cfg.Game)
	}
	name := cfg.Rules
	if name == "" {
		name = Presets()[0]
	}
	r, err := Preset(name)
	if err != nil {
		return nil, err
	}
	return newEngine(cfg, r, []string{SpotMain})
}

// NewChallenge21 makes a Challenge 21 table (RULES.md §4 "Challenge 21"): one hand under enhc
// rules against two or three dealer rounds drawn from the same first card. cfg.Rules may be ""
// or "enhc"; cfg.Options changes rule parameters as for New.
func NewChallenge21(cfg games.Config) (*Engine, error) {
	if cfg.Game == "" {
		cfg.Game = GameChallenge21
	}
	if cfg.Game != GameChallenge21 {
		return nil, fmt.Errorf("blackjack: NewChallenge21 makes game %q, not %q", GameChallenge21, cfg.Game)
	}
	if cfg.Rules != "" && cfg.Rules != "enhc" {
		return nil, fmt.Errorf("challenge21: unknown rules preset %q (Challenge 21 is played under enhc, RULES.md §4)", cfg.Rules)
	}
	for _, k := range []string{"hole-card", "peek", "promotions"} {
		if v, ok := cfg.Options[k]; ok && v != "no" && v != "false" {
			return nil, fmt.Errorf("challenge21: option %s=%s: the dealer's first card is the only card kept for every round (RULES.md §4)", k, v)
		}
	}
	r, _ := Preset("enhc")
	r.BlackjackAtOnce = true
	return newEngine(cfg, r, roundSpots)
}

func newEngine(cfg games.Config, r Rules, spots []string) (*Engine, error) {
	switch cfg.Decks {
	case 0:
		cfg.Decks = 6
	case 6, 8: // RULES.md §1: blackjack family 6 (6–8); §0 allows 6 or 8 in that range
	default:
		return nil, fmt.Errorf("%s: %d decks: the blackjack family plays 6 or 8 (RULES.md §1)", cfg.Game, cfg.Decks)
	}
	r, err := r.WithOptions(cfg.Options)
	if err != nil {
		if cfg.Game != GameBlackjack {
			err = fmt.Errorf("%s: %w", cfg.Game, err)
		}
		return nil, err
	}
	set := map[string]bool{}
	for k := range cfg.Options {
		set[k] = true
	}
	return &Engine{game: cfg.Game, rules: r, decks: cfg.Decks, cfg: cfg, set: set, spots: spots}, nil
}

var _ games.Layout = (*Engine)(nil)

// Spots returns the layout's spots: main and perfect-pairs, or Challenge 21's rounds.
func (e *Engine) Spots() []string {
	if e.game == GameBlackjack {
		return append(slices.Clone(e.spots), SpotPerfectPairs)
	}
	return slices.Clone(e.spots)
}

// Limits returns the limits in force.
func (e *Engine) Limits() []games.Limit { return slices.Clone(e.cfg.Limits) }

// SetLimits replaces the limits from the next round on.
func (e *Engine) SetLimits(ls []games.Limit) error {
	cfg, err := e.cfg.WithLimits(ls, e.Spots())
	if err != nil {
		return err
	}
	e.cfg = cfg
	return nil
}

// Game returns "blackjack" or "challenge21".
func (e *Engine) Game() string { return e.game }

// Rules returns the preset in force; "" for challenge21, which has none of its own.
func (e *Engine) Rules() string {
	if e.game == GameChallenge21 {
		return ""
	}
	return e.rules.Name
}

// RuleSet returns the rule parameters in force, options applied.
func (e *Engine) RuleSet() Rules { return e.rules }

// Decks returns the number of decks in the shoe.
func (e *Engine) Decks() int { return e.decks }

// cite names the source of a rule parameter for an error: the table's option when it set the
// parameter, else the preset's row of the RULES.md §4 table.
func (e *Engine) cite(option string) string {
	if e.set[option] {
		return "table option " + option + "=" + e.cfg.Options[option]
	}
	if e.game == GameChallenge21 {
		return "RULES.md §4 challenge21, enhc rules"
	}
	return "RULES.md §4 " + e.rules.Name
}

func (e *Engine) refuse(seat int, what, rule string) error {
	return &games.RuleError{Game: e.game, Seat: seat, What: what, Rule: rule}
}

// Begin starts a round. Blackjack spots are main and perfect-pairs (one main bet per box; a side
// bet needs a main bet on its box); Challenge 21 boxes bet round1 and round2, and optionally
// round3, all equal (RULES.md §4, §8).
func (e *Engine) Begin(bets []games.Bet) error {
	byseat := map[int]*box{}
	for _, b := range bets {
		if err := e.cfg.CheckBet(b); err != nil {
			return err
		}
		what := fmt.Sprintf("%s %d", b.Spot, b.Amount)
		if b.Amount > MaxBet {
			return e.refuse(b.Seat, what, fmt.Sprintf("above the engine's ceiling of %d cents on one spot", int64(MaxBet)))
		}
		bx := byseat[b.Seat]
		if bx == nil {
			bx = &box{seat: b.Seat, bets: make([]int64, len(e.spots))}
			byseat[b.Seat] = bx
		}
		k := -1
		for i, s := range e.spots {
			if b.Spot == s {
				k = i
			}
		}
		switch {
		case k >= 0:
			if bx.bets[k] != 0 {
				return e.refuse(b.Seat, what, "a second "+b.Spot+" bet on the same box (one bet per spot)")
			}
			bx.bets[k] = b.Amount
		case b.Spot == SpotPerfectPairs && e.game == GameBlackjack:
			if bx.pp != 0 {
				return e.refuse(b.Seat, what, "a second perfect-pairs bet on the same box")
			}
			bx.pp = b.Amount
		default:
			known := append([]string(nil), e.spots...)
			if e.game == GameBlackjack {
				known = append(known, SpotPerfectPairs)
			}
			return e.refuse(b.Seat, what, fmt.Sprintf("unknown spot %q (%s spots: %s; RULES.md §8)", b.Spot, e.game, strings.Join(known, ", ")))
		}
	}
	seats := make([]int, 0, len(byseat))
	for s := range byseat {
		seats = append(seats, s)
	}
	sort.Ints(seats)
	nround := 1
	boxes := make([]*box, 0, len(seats))
	for _, s := range seats {
		bx := byseat[s]
		if e.game == GameChallenge21 {
			b1, b2, b3 := bx.bets[0], bx.bets[1], bx.bets[2]
			if b1 == 0 || b2 == 0 || b1 != b2 || b3 != 0 && b3 != b1 {
				return e.refuse(s, fmt.Sprintf("round1 %d round2 %d round3 %d", b1, b2, b3),
					"a Challenge 21 box places 2 or 3 equal bets: round1 and round2, optionally round3 (RULES.md §4)")
			}
			if b3 != 0 {
				nround = 3
			} else if nround < 2 {
				nround = 2
			}
		} else if bx.bets[0] == 0 {
			return e.refuse(s, fmt.Sprintf("perfect-pairs %d", bx.pp), "a side bet without a main bet on its box (RULES.md §4: perfect pairs is on the box's first two cards)")
		}
		bx.ins = make([]int64, len(e.spots))
		bx.even = make([]bool, len(e.spots))
		bx.hands = []*hand{{}}
		boxes = append(boxes, bx)
	}

	*e = Engine{game: e.game, rules: e.rules, decks: e.decks, cfg: e.cfg, set: e.set, spots: e.spots,
		nround: nround, boxes: boxes, hole: -1, phase: phaseDeal}
	// RULES.md §4 deal order: one card to each box in seat order, the dealer's up card, a second
	// card to each box, then the hole card where the preset deals one.
	if len(boxes) > 0 {
		for range 2 {
			for _, bx := range boxes {
				e.deal = append(e.deal, games.Place{Name: "box", Seat: bx.seat})
			}
			if len(e.deal) == len(boxes) {
				e.deal = append(e.deal, games.Place{Name: "dealer"})
			}
		}
		if e.rules.HoleCard && e.game == GameBlackjack {
			e.deal = append(e.deal, games.Place{Name: "dealer"})
		}
	}
	e.advance()
	return nil
}

// Need says what the round waits for.
func (e *Engine) Need() games.Need {
	if e.phase == phaseIdle {
		return games.Need{Kind: games.NeedDone}
	}
	return e.need
}

// Burn refuses: a blackjack round burns nothing (RULES.md §1: one burn at the start of the shoe).
func (e *Engine) Burn(c card.Card) (games.Step, error) {
	return games.Step{}, e.refuse(0, "burn "+c.String(), "no card is burned inside a blackjack round (RULES.md §1: the burn is at the start of the shoe)")
}

// Card applies the next card from the shoe. While a hand waits for its decision and may hit, a
// card is that hand's hit (the "a card to the same hand = hit": the shoe cannot see where
// the dealer lays a card, so a stand must be entered before the next hand's card). Any other
// card where the rules allow none is a "card out of turn" error and changes nothing.
func (e *Engine) Card(c card.Card) (games.Step, error) {
	if !c.Valid() {
		return games.Step{}, e.refuse(0, c.String(), "not a card (RULES.md §0)")
	}
	n := e.Need()
	switch n.Kind {
	case games.NeedCard:
		e.step = games.Step{}
	case games.NeedDecision:
		if !contains(n.Options, CodeHit) {
			return games.Step{}, games.OutOfTurn(e.game, c, fmt.Sprintf("waiting for %s", n))
		}
		e.step = games.Step{}
		e.apply(n, CodeHit)
	default:
		if e.phase == phaseIdle {
			return games.Step{}, games.OutOfTurn(e.game, c, "no round has begun")
		}
		return games.Step{}, games.OutOfTurn(e.game, c, "the round is complete")
	}
	e.applyCard(c)
	e.advance()
	st := e.step
	e.step = games.Step{}
	return st, nil
}

// Decide applies a decision of the seat Need asks. A decision the rules forbid is a
// *games.RuleError naming the seat, the decision and the rule, and changes nothing.
func (e *Engine) Decide(seat int, decision string) (games.Step, error) {
	d := strings.ToUpper(strings.TrimSpace(decision))
	n := e.Need()
	if n.Kind != games.NeedDecision {
		why := "no decision is asked now (" + n.String() + ")"
		if e.phase == phasePlay || e.phase == phaseDealer {
			if r := e.Unasked(seat, d); r != "" {
				why += "; " + r
			}
		}
		return games.Step{}, e.refuse(seat, decision, why)
	}
	if seat != n.Seat {
		return games.Step{}, e.refuse(seat, decision, fmt.Sprintf("not this seat's turn (%s)", n))
	}
	if !contains(n.Options, d) {
		return games.Step{}, e.refuse(seat, decision, e.why(n, d))
	}
	e.step = games.Step{}
	e.apply(n, d)
	e.advance()
	st := e.step
	e.step = games.Step{}
	return st, nil
}

var _ games.Explainer = (*Engine)(nil)

// Unasked says why decision d of seat was not asked for (games.Explainer): the rule that finished
// the seat's hand without a question (split aces take one card; no hit on 21), or that the seat
// has no box. It returns "" when it has no reason to give.
func (e *Engine) Unasked(seat int, d string) string {
	d = strings.ToUpper(strings.TrimSpace(d))
	bx := e.boxByseat(seat)
	if bx == nil {
		if e.phase == phaseIdle {
			return ""
		}
		return fmt.Sprintf("seat %d has no box in this round (no %s bet)", seat, e.spots[0])
	}
	if d != CodeHit && d != CodeDouble && d != CodeSplit && d != CodeSurrender {
		return ""
	}
	first := ""
	for i, h := range bx.hands {
		if !h.done || len(h.cards) < 2 {
			continue
		}
		r := e.forbid(bx, h, d)
		if r == "" || r == "unknown" {
			continue
		}
		r = fmt.Sprintf("hand %d: %s", i+1, r)
		if h.aces {
			return r // the split aces' one-card rule is the likeliest reason
		}
		if first == "" {
			first = r
		}
	}
	return first
}

// Outcome returns the settled round once Need is NeedDone.
func (e *Engine) Outcome() (*games.Outcome, error) {
	if e.out == nil {
		return nil, fmt.Errorf("%s: the round is not complete (%s)", e.game, e.Need())
	}
	o := *e.out
	o.CardsUsed = e.n
	return &o, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (e *Engine) say(m games.Msg) {
	e.step.Say = append(e.step.Say, m)
}

// up returns the pip value of the dealer's up card (1 = ace).
func (e *Engine) up() int { return Value(e.dealer[0]) }

// upAceOrTen reports whether the dealer could make a blackjack.
func (e *Engine) upAceOrTen() bool { u := e.up(); return u == 1 || u == 10 }

// ---- the state machine ----

// advance moves through every step that needs no input, and sets e.need to what the round
// waits for next.
func (e *Engine) advance() {
	for {
		switch e.phase {
		case phaseDeal:
			if len(e.boxes) == 0 {
				e.finish()
				continue
			}
			if e.dealAt < len(e.deal) {
				p := e.deal[e.dealAt]
				face := games.FaceUp
				if p.Name == "dealer" && len(e.dealer) == 1 {
					face = games.FaceDown // RULES.md §1 "Hidden cards": the hole card
				}
				e.need = games.Need{Kind: games.NeedCard, To: p, Face: face}
				return
			}
			e.afterDeal()
		case phaseInsurance:
			if n, ok := e.insuranceQuestion(); ok {
				e.need = n
				return
			}
			e.afterInsurance()
		case phasePlay:
			if e.playNeed() {
				return
			}
			e.phase = phaseDealer
			e.dealerStarts()
		case phaseDealer:
			if e.dealerNeed() {
				return
			}
			e.finish()
		case phaseDone:
			e.need = games.Need{Kind: games.NeedDone}
			return
		default:
			e.need = games.Need{Kind: games.NeedDone}
			return
		}
	}
}

// applyCard gives c to the place Need asked for.
func (e *Engine) applyCard(c card.Card) {
	idx := e.n
	e.n++
	switch e.phase {
	case phaseDeal:
		p := e.deal[e.dealAt]
		e.dealAt++
		if p.Name == "dealer" {
			if len(e.dealer) == 1 {
				e.hole = idx
			}
			e.dealer = append(e.dealer, c)
			if len(e.dealer) == 1 {
				e.say(games.M("bj.up-card", games.T("card", upWords(c))))
			}
			return
		}
		h := e.boxByseat(p.Seat).hands[0]
		h.cards = append(h.cards, c)
	case phasePlay:
		bx, h, hi := e.current()
		e.handCard(bx, h, hi, c)
	case phaseDealer:
		d := e.dealerHand()
		*d = append(*d, c)
		t, soft := Score(*d)
		switch {
		case len(*d) == 2 && Natural((*d)[0], (*d)[1]):
			e.say(games.M("bj.has-blackjack", games.T("who", e.dealerName())))
		case t > 21:
			e.say(games.M("bj.busts", games.T("who", e.dealerName()), games.N("total", t)))
		default:
			e.say(games.M("bj.has", games.T("who", e.dealerName()), describe("total", t, soft)))
		}
	}
}

// upWords says the dealer's up card by what it counts, never by its identity (the card is on
// the feed in its own field; words name no card): "an ace", "a ten", "a 6".
func upWords(c card.Card) games.Msg {
	switch r := c.Rank(); {
	case r == card.Ace:
		return games.M("bj.up.ace")
	case r >= card.Ten:
		return games.M("bj.up.ten")
	case r == card.Eight:
		return games.M("bj.up.eight") // English says "an 8"
	default:
		return games.M("bj.up.pips", games.N("pips", int(r)))
	}
}

// describe is a hand's total as an argument: "17", or the term "soft 17".
func describe(name string, t int, soft bool) games.NamedArg {
	if soft && t < 21 {
		return games.T(name, games.M("bj.soft", games.N("total", t)))
	}
	return games.N(name, t)
}

func (e *Engine) boxByseat(seat int) *box {
	for _, b := range e.boxes {
		if b.seat == seat {
			return b
		}
	}
	return nil
}

// afterDeal settles what the first two cards decide: perfect pairs, the jack-of-spades prize,
// blackjacks paid at once; then opens insurance.
func (e *Engine) afterDeal() {
	for _, bx := range e.boxes {
		h := bx.hands[0]
		bx.first = [2]card.Card{h.cards[0], h.cards[1]}
		h.natural = Natural(h.cards[0], h.cards[1])
		if bx.pp > 0 {
			p := PairOf(bx.first[0], bx.first[1])
			if p == NoPair {
				e.say(games.M("bj.pp-loses", games.N("seat", bx.seat)))
			} else {
				e.say(games.M("bj.pp-pays", games.N("seat", bx.seat), games.T("pair", games.M("bj.pair."+strings.ReplaceAll(p.String(), " ", "-"))), games.N("pays", p.Pays())))
			}
		}
		if !h.natural {
			continue
		}
		h.done = true
		if e.rules.Promotions {
			if p := PrizeOf(h.cards, true); p != NoPrize {
				h.prize = p // RULES.md §4 real21: paid at once, no even-money offer
				e.say(games.M("bj.prize", games.T("who", seatName(bx.seat, 0, 1)), games.T("prize", games.M("bj.prize."+p.String())), games.N("pays", p.Pays())))
				continue
			}
		}
		if e.rules.BlackjackAtOnce && !e.upAceOrTen() {
			h.paidAtOnce = true
			e.say(games.M("bj.blackjack-paid", games.N("seat", bx.seat), games.N("num", e.rules.BlackjackNum), games.N("den", e.rules.BlackjackDen)))
		} else {
			e.say(games.M("bj.has-blackjack", games.T("who", seatName(bx.seat, 0, 1))))
		}
	}
	e.phase = phaseInsurance
}

// insuranceQuestion returns the next insurance or even-money question: against an ace up card,
// box by box in seat order, before any box acts (RULES.md §8); in Challenge 21 once per round
// (RULES.md §4).
func (e *Engine) insuranceQuestion() (games.Need, bool) {
	if e.up() != 1 {
		return games.Need{}, false
	}
	for ; e.insBox < len(e.boxes); e.insBox, e.insRound = e.insBox+1, 0 {
		bx := e.boxes[e.insBox]
		h := bx.hands[0]
		for ; e.insRound < len(e.spots); e.insRound++ {
			if bx.bets[e.insRound] == 0 || h.prize != NoPrize {
				continue
			}
			if h.natural && e.rules.EvenMoney {
				return games.Need{Kind: games.NeedDecision, Seat: bx.seat, Options: []string{CodeEvenMoney, CodeDecline}}, true
			}
			if e.rules.Insurance && bx.bets[e.insRound]/2 > 0 {
				return games.Need{Kind: games.NeedDecision, Seat: bx.seat, Options: []string{CodeInsure, CodeDecline}}, true
			}
		}
	}
	return games.Need{}, false
}

// afterInsurance does the peek (RULES.md §4: with a hole card and an ace or ten up, before the
// players act) and starts play.
func (e *Engine) afterInsurance() {
	if e.rules.Peek && e.rules.HoleCard && len(e.dealer) == 2 && e.upAceOrTen() {
		if Natural(e.dealer[0], e.dealer[1]) {
			e.holeUp = true
			e.step.Reveal = append(e.step.Reveal, e.hole)
			e.say(games.M("bj.peek-blackjack"))
			for _, bx := range e.boxes {
				bx.hands[0].done = true
			}
			e.finish()
			return
		}
		e.say(games.M("bj.peek-none"))
	}
	e.phase = phasePlay
}

// current returns the hand in play: the first unfinished hand, boxes in seat order, hands in
// order (RULES.md §4: a split's first hand is completed before the second gets its second card).
func (e *Engine) current() (*box, *hand, int) {
	for _, bx := range e.boxes {
		for i, h := range bx.hands {
			if !h.done {
				return bx, h, i
			}
		}
	}
	return nil, nil, 0
}

// playNeed sets the need of the hand in play; false when every hand is finished.
func (e *Engine) playNeed() bool {
	bx, h, hi := e.current()
	if h == nil {
		return false
	}
	if len(h.cards) < 2 || h.want {
		e.need = games.Need{Kind: games.NeedCard, To: games.Place{Name: "box", Seat: bx.seat, Hand: hi}}
		return true
	}
	e.need = games.Need{Kind: games.NeedDecision, Seat: bx.seat, Hand: hi, Options: e.options(bx, h)}
	return true
}

// options lists the playing decisions the rules allow for hand h of box bx, in the order
// H S D P R.
func (e *Engine) options(bx *box, h *hand) []string {
	var out []string
	for _, d := range []string{CodeHit, CodeStand, CodeDouble, CodeSplit, CodeSurrender} {
		if e.forbid(bx, h, d) == "" {
			out = append(out, d)
		}
	}
	return out
}

// forbid returns why a playing decision is not allowed on hand h, citing the rule, or "".
func (e *Engine) forbid(bx *box, h *hand, d string) string {
	r := e.rules
	t := h.total()
	switch d {
	case CodeHit:
		if h.aces && !r.HitSplitAces {
			return "split aces take one card each (" + e.cite("hit-split-aces") + ")"
		}
		if t >= 21 {
			return "a player cannot hit a hand of 21 or more (RULES.md §4)"
		}
	case CodeStand:
	case CodeDouble:
		switch {
		case len(h.cards) != 2 || h.acted:
			return "double only on the first two cards (RULES.md §4)"
		case h.aces:
			return "no double on split aces (" + e.cite("double-after-split") + ")"
		case h.split && !r.DoubleAfterSplit:
			return "no double after a split (" + e.cite("double-after-split") + ")"
		case !r.Double.Allows(t):
			switch r.Double {
			case DoubleNone:
				return "no doubling (" + e.cite("double") + ")"
			case Double9to11:
				return fmt.Sprintf("double only on first two cards totalling 9, 10 or 11, not %d (%s)", t, e.cite("double"))
			default:
				return fmt.Sprintf("double only on first two cards totalling 10 or 11, not %d (%s)", t, e.cite("double"))
			}
		}
	case CodeSplit:
		if len(h.cards) != 2 || h.acted {
			return "split only a pair as the first two cards (RULES.md §4)"
		}
		a, b := h.cards[0], h.cards[1]
		switch {
		case r.Split == SplitRank && a.Rank() != b.Rank():
			return fmt.Sprintf("split only two cards of equal rank, not %s %s (%s)", a, b, e.cite("split"))
		case Value(a) != Value(b):
			return fmt.Sprintf("split only two cards of equal value, not %s %s (%s)", a, b, e.cite("split"))
		case h.aces && !r.ResplitAces:
			return "split aces are not resplit (" + e.cite("resplit-aces") + ")"
		case len(bx.hands) >= r.MaxHands:
			if r.MaxHands == 1 {
				return "no splitting (" + e.cite("max-hands") + ")"
			}
			return fmt.Sprintf("at most %d hands from one box (%s)", r.MaxHands, e.cite("max-hands"))
		}
	case CodeSurrender:
		switch {
		case r.Surrender == SurrenderNone:
			return "no surrender (" + e.cite("surrender") + ")"
		case h.split || h.acted || len(h.cards) != 2:
			return "surrender only as the first decision of an unsplit hand (RULES.md §4)"
		case !r.Surrender.Allows(e.up()):
			if r.Surrender == SurrenderAceTen {
				return fmt.Sprintf("surrender (retiro) only against an ace or a ten-value up card, not %s (%s)", e.dealer[0], e.cite("surrender"))
			}
			return fmt.Sprintf("no surrender against an ace (%s)", e.cite("surrender"))
		}
	default:
		return "unknown"
	}
	return ""
}

// why explains a refused decision d when n is asked.
func (e *Engine) why(n games.Need, d string) string {
	insurance := contains(n.Options, CodeDecline)
	switch d {
	case CodeHit, CodeStand, CodeDouble, CodeSplit, CodeSurrender:
		if insurance {
			return fmt.Sprintf("insurance and even money are asked before play; the seat must answer %s (RULES.md §8)", strings.Join(n.Options, " or "))
		}
		bx := e.boxByseat(n.Seat)
		return e.forbid(bx, bx.hands[n.Hand], d)
	case CodeInsure, CodeDecline, CodeEvenMoney:
		switch {
		case !insurance:
			return fmt.Sprintf("insurance and even money are asked only against an ace, before play; the seat is asked to play (%s) (RULES.md §4, §8)", strings.Join(n.Options, " "))
		case d == CodeInsure:
			return "even money, not insurance, is offered to a blackjack (" + e.cite("even-money") + ")"
		case e.boxByseat(n.Seat).hands[0].natural:
			return "no even money (" + e.cite("even-money") + "); insurance is offered"
		default:
			return "even money is offered only to a blackjack (RULES.md §4)"
		}
	}
	return fmt.Sprintf("unknown decision (RULES.md §8 codes: H S D P R I N E; asked: %s)", strings.Join(n.Options, " "))
}

// apply carries out an allowed decision.
func (e *Engine) apply(n games.Need, d string) {
	bx := e.boxByseat(n.Seat)
	switch d {
	case CodeInsure:
		k := e.insRound
		bx.ins[k] = bx.bets[k] / 2 // RULES.md §4: half the bet; an odd cent stays with the player
		e.say(e.roundMsg("bj.insurance", k, games.N("seat", bx.seat), games.N("amount", bx.ins[k])))
		e.insRound++
		return
	case CodeEvenMoney:
		k := e.insRound
		bx.even[k] = true
		e.say(e.roundMsg("bj.even-money", k, games.N("seat", bx.seat), games.N("amount", bx.bets[k])))
		if e.allEven(bx) {
			bx.hands[0].paidAtOnce = true
		}
		e.insRound++
		return
	case CodeDecline:
		e.insRound++
		return
	}
	h := bx.hands[n.Hand]
	switch d {
	case CodeHit:
		h.want, h.acted = true, true
	case CodeStand:
		h.done, h.acted = true, true
		e.say(games.M("bj.stands", games.T("who", seatName(bx.seat, n.Hand, len(bx.hands))), games.N("total", h.total())))
	case CodeDouble:
		h.want, h.acted, h.doubled = true, true, true
		e.say(games.M("bj.doubles", games.T("who", seatName(bx.seat, n.Hand, len(bx.hands)))))
	case CodeSurrender:
		h.done, h.acted, h.surrender = true, true, true
		e.say(games.M("bj.surrenders", games.N("seat", bx.seat)))
	case CodeSplit:
		nh := &hand{cards: []card.Card{h.cards[1]}, split: true}
		h.cards = h.cards[:1:1]
		h.split, h.acted = true, false
		if h.cards[0].Rank() == card.Ace && !e.rules.HitSplitAces {
			h.aces, nh.aces = true, true
		}
		bx.hands = append(bx.hands[:n.Hand+1], append([]*hand{nh}, bx.hands[n.Hand+1:]...)...)
		e.say(games.M("bj.splits", games.N("seat", bx.seat), games.N("hands", len(bx.hands))))
	}
}

func (e *Engine) allEven(bx *box) bool {
	for k, b := range bx.bets {
		if b > 0 && !bx.even[k] {
			return false
		}
	}
	return true
}

// roundMsg is code, or in Challenge 21 code-on naming the round k ("on round2").
func (e *Engine) roundMsg(code string, k int, args ...games.NamedArg) games.Msg {
	if e.game == GameChallenge21 {
		return games.M(code+"-on", append(args, games.T("round", games.M("spot."+e.spots[k])))...)
	}
	return games.M(code, args...)
}

// seatName is a seat's hand i of n as a term: "seat 2", or "seat 2 hand 1" after a split.
func seatName(seat, i, n int) games.Msg {
	if n == 1 {
		return games.M("bj.seat", games.N("seat", seat))
	}
	return games.M("bj.seat-hand", games.N("seat", seat), games.N("hand", i+1))
}

// handCard gives a card to the hand in play and finishes it where the rules say.
func (e *Engine) handCard(bx *box, h *hand, hi int, c card.Card) {
	h.cards = append(h.cards, c)
	h.want = false
	name := seatName(bx.seat, hi, len(bx.hands))
	t, soft := Score(h.cards)
	prize := NoPrize
	if e.rules.Promotions {
		prize = PrizeOf(h.cards, false)
	}
	switch {
	case t > 21:
		h.done = true
		e.say(games.M("bj.busts", games.T("who", name), games.N("total", t)))
	case prize != NoPrize:
		h.done, h.prize = true, prize
		e.say(games.M("bj.prize", games.T("who", name), games.T("prize", games.M("bj.prize."+prize.String())), games.N("pays", prize.Pays())))
	case h.doubled:
		h.done = true
		e.say(games.M("bj.has", games.T("who", name), describe("total", t, soft)))
	case h.aces && len(h.cards) == 2:
		// RULES.md §4: one card each on split aces; an ace may be resplit only where allowed.
		if !(c.Rank() == card.Ace && e.rules.ResplitAces && len(bx.hands) < e.rules.MaxHands) {
			h.done = true
		}
		e.say(games.M("bj.has", games.T("who", name), describe("total", t, soft)))
	case t == 21:
		h.done = true // RULES.md §4: no hit on 21; a split hand's two-card 21 is not blackjack
		e.say(games.M("bj.has", games.T("who", name), games.N("total", 21)))
	default:
		e.say(games.M("bj.has", games.T("who", name), describe("total", t, soft)))
	}
}

// ---- the dealer ----

func (e *Engine) dealerName() games.Msg {
	if e.game == GameChallenge21 {
		return games.M("bj.dealer-round", games.T("round", games.M("spot."+e.spots[e.dround])))
	}
	return games.M("bj.dealer")
}

func (e *Engine) dealerHand() *[]card.Card {
	if e.game == GameChallenge21 {
		return &e.drounds[e.dround]
	}
	return &e.dealer
}

// dealerStarts turns the hole card up and sets up the dealer's rounds.
func (e *Engine) dealerStarts() {
	if e.hole >= 0 && !e.holeUp {
		e.holeUp = true
		e.step.Reveal = append(e.step.Reveal, e.hole)
		t, soft := Score(e.dealer)
		if Natural(e.dealer[0], e.dealer[1]) {
			e.say(games.M("bj.hole-blackjack"))
		} else {
			e.say(games.M("bj.hole", describe("total", t, soft)))
		}
	}
	if e.game == GameChallenge21 {
		e.drounds = make([][]card.Card, e.nround)
		for k := range e.drounds {
			e.drounds[k] = []card.Card{e.dealer[0]}
		}
	}
}

// pending reports what round k still needs from the dealer: full when a live hand must be
// compared with the dealer's total, check when only a blackjack (or an insurance bet) waits to
// know whether the dealer has a blackjack.
func (e *Engine) pending(k int) (full, check bool) {
	for _, bx := range e.boxes {
		if bx.bets[k] == 0 {
			continue
		}
		if bx.ins[k] > 0 {
			check = true
		}
		for _, h := range bx.hands {
			switch {
			case h.surrender, h.prize != NoPrize, h.bust(), h.paidAtOnce:
			case h.natural:
				if !bx.even[k] {
					check = true
				}
			default:
				full = true
			}
		}
	}
	return full, check
}

// dealerNeed sets the dealer's next card, round by round; false when the dealer is finished.
// The dealer draws to 17 (hitting soft 17 where the rules say) only while a live hand waits for
// the dealer's total; when only blackjacks or insurance wait, the dealer takes just the second
// card of a game without a hole card; when nothing waits, the dealer draws nothing.
func (e *Engine) dealerNeed() bool {
	for e.dround < e.nround {
		d := *e.dealerHand()
		full, check := e.pending(e.dround)
		t, soft := Score(d)
		natural := len(d) == 2 && Natural(d[0], d[1])
		hit := false
		switch {
		case natural:
		case full:
			hit = t < 17 || t == 17 && soft && e.rules.HitSoft17
		case check:
			hit = len(d) < 2
		}
		to := games.Place{Name: "dealer"}
		if e.game == GameChallenge21 {
			to = games.Place{Name: e.spots[e.dround]}
		}
		if hit {
			if len(d) >= 2 {
				e.say(games.M("bj.dealer-hits", games.T("who", e.dealerName()), describe("total", t, soft)))
			} else {
				e.say(games.M("bj.dealer-second", games.T("who", e.dealerName())))
			}
			e.need = games.Need{Kind: games.NeedCard, To: to}
			return true
		}
		if full && !natural && t <= 21 {
			e.say(games.M("bj.dealer-stands", games.T("who", e.dealerName()), describe("total", t, soft)))
		}
		if e.game == GameChallenge21 {
			e.say(games.M("bj.settle-round", games.T("round", games.M("spot."+e.spots[e.dround]))))
		}
		e.dround++
	}
	return false
}

// ---- settlement ----

// dealerNatural reports whether the dealer's hand of round k is a blackjack.
func (e *Engine) dealerNatural(k int) bool {
	d := e.dealer
	if e.game == GameChallenge21 {
		if e.drounds == nil {
			return false
		}
		d = e.drounds[k]
	}
	return len(d) >= 2 && Natural(d[0], d[1])
}

func (e *Engine) dealerTotal(k int) int {
	if e.game == GameChallenge21 {
		if e.drounds == nil {
			t, _ := Score(e.dealer)
			return t
		}
		t, _ := Score(e.drounds[k])
		return t
	}
	t, _ := Score(e.dealer)
	return t
}

// settle returns the net of hand hi of box bx on round k, and the hand's outcome word. Every
// fraction of a cent is rounded toward the house: a 3:2 blackjack on an odd stake pays
// floor(3·stake/2), a surrender returns floor(stake/2) (RULES.md §4 "Rounding").
func (e *Engine) settle(bx *box, hi, k int, firstLive bool) (stake, net int64, word string) {
	h := bx.hands[hi]
	base := bx.bets[k]
	stake = base
	if h.doubled {
		stake = 2 * base
	}
	dn := e.dealerNatural(k)
	dt := e.dealerTotal(k)
	t := h.total()
	switch {
	case h.surrender:
		return stake, -(stake - stake/2), "surrender"
	case t > 21:
		return stake, -stake, "bust"
	case h.prize != NoPrize:
		return stake, stake * h.prize.Pays(), h.prize.String()
	case h.natural && bx.even[k]:
		return stake, base, "even-money"
	case h.natural:
		if dn {
			return stake, 0, "push"
		}
		return stake, stake * e.rules.BlackjackNum / e.rules.BlackjackDen, "blackjack"
	case dn:
		if e.rules.DealerBJTakesAll {
			return stake, -stake, "lose"
		}
		// Original bet only: the box's first live hand loses the original stake, doubles and
		// split hands are returned.
		if firstLive {
			return stake, -base, "lose"
		}
		return stake, 0, "push"
	case dt > 21 || t > dt:
		return stake, stake, "win"
	case t == dt:
		return stake, 0, "push"
	}
	return stake, -stake, "lose"
}

// finish settles the round and makes the outcome.
func (e *Engine) finish() {
	e.phase = phaseDone
	e.need = games.Need{Kind: games.NeedDone}
	o := &games.Outcome{Game: e.game, Rules: e.Rules(), Hands: []games.Hand{}, Settlements: []games.Settlement{}}
	if len(e.dealer) > 0 {
		t, _ := Score(e.dealer)
		dh := &games.Hand{Name: "dealer", Cards: append([]card.Card(nil), e.dealer...), Total: t}
		if e.game == GameBlackjack {
			switch {
			case e.dealerNatural(0):
				dh.Outcome = "blackjack"
			case t > 21:
				dh.Outcome = "bust"
			}
		}
		o.Dealer = dh
	}
	for _, bx := range e.boxes {
		if bx.pp > 0 {
			// RULES.md §4: on the box's first two cards, whatever its hands hold after a split.
			p := PairOf(bx.first[0], bx.first[1])
			net := -bx.pp
			if p != NoPair {
				net = bx.pp * p.Pays()
			}
			o.Settlements = append(o.Settlements, games.Settlement{Seat: bx.seat, Spot: SpotPerfectPairs, Amount: bx.pp, Net: net})
		}
		for k, ins := range bx.ins {
			if ins == 0 {
				continue
			}
			net := -ins
			if e.dealerNatural(k) {
				net = 2 * ins
			}
			spot := SpotInsurance
			if e.game == GameChallenge21 {
				spot = e.spots[k] + "-" + SpotInsurance
			}
			o.Settlements = append(o.Settlements, games.Settlement{Seat: bx.seat, Spot: spot, Amount: ins, Net: net})
		}
		words := make([][]string, len(bx.hands))
		for k, b := range bx.bets {
			if b == 0 {
				continue
			}
			firstLive := true
			for hi, h := range bx.hands {
				live := !h.surrender && !h.bust() && h.prize == NoPrize
				stake, net, w := e.settle(bx, hi, k, firstLive && live)
				if live {
					firstLive = false
				}
				words[hi] = append(words[hi], w)
				o.Settlements = append(o.Settlements, games.Settlement{Seat: bx.seat, Spot: e.spots[k], Hand: hi, Amount: stake, Net: net})
			}
		}
		for hi, h := range bx.hands {
			o.Hands = append(o.Hands, games.Hand{Seat: bx.seat, Hand: hi, Cards: append([]card.Card(nil), h.cards...),
				Total: h.total(), Outcome: strings.Join(words[hi], ",")})
		}
	}
	var res []string
	if e.game == GameChallenge21 {
		for k, d := range e.drounds {
			t, _ := Score(d)
			w := ""
			switch {
			case len(d) >= 2 && Natural(d[0], d[1]):
				w = "blackjack"
			case t > 21:
				w = "bust"
			}
			o.Hands = append(o.Hands, games.Hand{Name: e.spots[k], Hand: k, Cards: append([]card.Card(nil), d...), Total: t, Outcome: w})
			res = append(res, e.spots[k]+" "+dealerWord(d))
		}
	} else if len(e.dealer) > 0 {
		res = append(res, dealerWord(e.dealer))
	}
	o.Result = strings.Join(res, "; ")
	e.out = o
}

func dealerWord(d []card.Card) string {
	t, _ := Score(d)
	switch {
	case len(d) >= 2 && Natural(d[0], d[1]):
		return "dealer blackjack"
	case t > 21:
		return fmt.Sprintf("dealer busts with %d", t)
	}
	return fmt.Sprintf("dealer %d", t)
}
