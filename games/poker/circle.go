package poker

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/poker/hand"
	"github.com/sabot-tables/sabot/shoe/card"
)

// Circle engine options (games.Config.Options).
const (
	// OptButton is the seat of the dealer button (default: the highest seat with a stack, so
	// that the deal starts with the lowest seat). Cards are dealt, and the odd cent of a split
	// pot goes, starting from the first seat on its left.
	OptButton = "button"
	// OptSmallBlind and OptBigBlind are the forced bets of hold'em and the 2+3 game, in cents
	// (default none), posted by the two seats after the button (heads-up: the button posts the
	// small blind).
	OptSmallBlind = "small-blind"
	OptBigBlind   = "big-blind"
	// OptMinBet is the smallest bet, in cents (default the big blind, else 1).
	OptMinBet = "min-bet"
	// OptRake is the house's share of each pot, a percentage ("5%", "2.5%"; default 0), and
	// OptRakeCap the most it takes in one round, in cents (default no cap).
	OptRake    = "rake"
	OptRakeCap = "rake-cap"
)

// street is one stage of a circle game: an optional burn and community cards, or a card to each
// seat still in the hand, then a betting round.
type street struct {
	burn  bool
	board int          // community cards, face up
	each  []games.Face // cards to each seat, one round of the table per entry
}

func streetsOf(game string) []street {
	down, up := games.FaceDown, games.FaceUp
	switch game {
	case Holdem, Omaha23:
		hole := []games.Face{down, down}
		if game == Omaha23 {
			hole = []games.Face{down, down, down, down}
		}
		// RULES.md §6: 3 + 1 + 1 community cards, a burn before each street (RULES.md §1).
		return []street{{each: hole}, {burn: true, board: 3}, {burn: true, board: 1}, {burn: true, board: 1}}
	case FiveCardStud: // 1 closed + 4 open, one street each
		return []street{{each: []games.Face{down, up}}, {each: []games.Face{up}}, {each: []games.Face{up}}, {each: []games.Face{up}}}
	case SevenCardStud: // 2 closed + 1 open, then 3 open and a last one closed
		return []street{{each: []games.Face{down, down, up}}, {each: []games.Face{up}}, {each: []games.Face{up}}, {each: []games.Face{up}}, {each: []games.Face{down}}}
	}
	return nil
}

// Circle is a poker game between players, the house directing it and taking a rake (RULES.md
// §6): holdem, omaha-2-3, five-card-stud or seven-card-stud, no-limit.
//
// Each seat brings a stack (the spot "stack": the most it can put in the pots) and may post an
// ante (spot "ante"); hold'em and the 2+3 game may have blinds. Decisions, asked seat by seat in
// the order of play, are "fold", "check", "call", "bet:N", "raise:N" (N: the seat's whole bet on
// this street, in cents) and "allin"; Need.Options lists those allowed, with the bet range
// ("raise:400-5000"). A raise is at least the previous raise on the street (the big blind, or
// the minimum bet, to start); an all-in for less does not reopen the betting to seats that have
// already acted. Hold'em and the 2+3 game start the first round left of the big blind and the
// others left of the button; seven-card stud starts its first round with the lowest open card
// (aces high, suits clubs < diamonds < hearts < spades) and five-card stud with the highest; later
// stud rounds start with the best open cards. When all but one seat fold, that seat takes the
// pots at once, unseen and without further cards; when at most one seat can still bet, the rest of
// the cards are dealt without betting.
type Circle struct {
	game             string
	cfg              games.Config
	seatN            int
	button           int
	buttonSet        bool
	rounds           int // rounds begun on this engine: the button moves after the first
	sb, bb, minBet   int64
	rakeBP, rakeCap  int64
	streets          []street
	players          []*player // in the order of play: the button's left first
	street           int
	queue            []games.Need
	dealt            dealt
	board            []card.Card
	boardIdx         []int
	betting          bool
	actor            int   // index in players of the seat to act
	maxBet, minRaise int64 // this street
	done             bool
	began            bool
}

type player struct {
	seat            int
	stack           int64 // chips not yet in the pots
	ante            int64
	contrib         int64 // put in the pots this round
	bet             int64 // put in on this street
	cards           []card.Card
	idx             []int
	face            []games.Face
	folded, allIn   bool
	needs, canRaise bool
	blind           string
	lastAction      string
}

var _ games.Engine = (*Circle)(nil)

// NewCircle makes a circle poker engine for cfg.Game (one of CircleGames).
func NewCircle(cfg games.Config) (*Circle, error) {
	if !slices.Contains(CircleGames, cfg.Game) {
		return nil, fmt.Errorf("poker: %q is not a circle poker game (%s)", cfg.Game, strings.Join(CircleGames, ", "))
	}
	if cfg.Rules != "" {
		return nil, fmt.Errorf("poker: %s has no rule presets (got %q)", cfg.Game, cfg.Rules)
	}
	if cfg.Decks != 0 && cfg.Decks != 1 {
		return nil, fmt.Errorf("poker: %s is dealt from one deck, not %d (RULES.md §1)", cfg.Game, cfg.Decks)
	}
	known := []string{OptSeats, OptButton, OptMinBet, OptRake, OptRakeCap}
	if cfg.Game == Holdem || cfg.Game == Omaha23 {
		known = append(known, OptSmallBlind, OptBigBlind)
	}
	o, err := newOptions(cfg.Game, cfg.Options, known...)
	if err != nil {
		return nil, err
	}
	c := &Circle{game: cfg.Game, cfg: cfg, streets: streetsOf(cfg.Game)}
	n, err := o.int(OptSeats, 10, 2, 10)
	if err != nil {
		return nil, err
	}
	c.seatN = int(n)
	if o.has(OptButton) {
		b, err := o.int(OptButton, 0, 1, n)
		if err != nil {
			return nil, err
		}
		c.button, c.buttonSet = int(b), true
	}
	const most = 1 << 50
	if c.sb, err = o.int(OptSmallBlind, 0, 0, most); err != nil {
		return nil, err
	}
	if c.bb, err = o.int(OptBigBlind, 0, 0, most); err != nil {
		return nil, err
	}
	if c.sb > c.bb {
		return nil, fmt.Errorf("poker: %s: the small blind (%d) is above the big blind (%d)", c.game, c.sb, c.bb)
	}
	if c.minBet, err = o.int(OptMinBet, max(c.bb, 1), 1, most); err != nil {
		return nil, err
	}
	if c.rakeBP, err = o.basisPoints(OptRake); err != nil {
		return nil, err
	}
	if c.rakeCap, err = o.int(OptRakeCap, 0, 0, most); err != nil {
		return nil, err
	}
	return c, nil
}

// Game returns the game id.
func (c *Circle) Game() string { return c.game }

// Button returns the seat holding the dealer's button in the round begun last.
func (c *Circle) Button() int { return c.button }

// Rules returns "": the circle games have no presets.
func (c *Circle) Rules() string { return "" }

func (c *Circle) refuse(seat int, what, rule string) error {
	return &games.RuleError{Game: c.game, Seat: seat, What: what, Rule: rule}
}

// Begin takes the seats' stacks and antes, posts the antes and blinds, and lays out the deal.
func (c *Circle) Begin(bets []games.Bet) error {
	bySeat := map[int]*player{}
	var order []int
	for _, b := range bets {
		what := fmt.Sprintf("%s %d", b.Spot, b.Amount)
		if b.Spot != SpotStack && b.Spot != SpotAnte {
			return c.refuse(b.Seat, what, fmt.Sprintf("unknown spot for %s (spots: %s, %s; bets are decisions)", c.game, SpotStack, SpotAnte))
		}
		if err := c.cfg.CheckBet(b); err != nil {
			return err
		}
		if b.Seat > c.seatN {
			return c.refuse(b.Seat, what, fmt.Sprintf("the table has seats 1–%d", c.seatN))
		}
		p := bySeat[b.Seat]
		if p == nil {
			p = &player{seat: b.Seat, canRaise: true}
			bySeat[b.Seat] = p
			order = append(order, b.Seat)
		}
		slot := &p.stack
		if b.Spot == SpotAnte {
			slot = &p.ante
		}
		if *slot != 0 {
			return c.refuse(b.Seat, what, "given twice")
		}
		*slot = b.Amount
	}
	slices.Sort(order)
	for _, s := range order {
		p := bySeat[s]
		if p.stack == 0 {
			return c.refuse(s, fmt.Sprintf("%s %d", SpotAnte, p.ante), "a seat in a circle game needs its stack (spot \"stack\")")
		}
		if p.ante > p.stack {
			return c.refuse(s, fmt.Sprintf("%s %d", SpotAnte, p.ante), fmt.Sprintf("above the seat's stack of %d", p.stack))
		}
	}
	maxPlayers := 10
	if c.game == SevenCardStud {
		maxPlayers = 7 // seven cards each from one deck
	}
	if len(order) < 2 || len(order) > maxPlayers {
		what := fmt.Sprintf("%d players", len(order))
		if len(order) == 1 {
			what = "1 player"
		}
		return c.refuse(0, what, fmt.Sprintf("%s is played by 2 to %d seats", c.game, maxPlayers))
	}
	// The button: the configured seat (or the highest seat playing) at the first round, then it
	// moves one seat to the left (the next seat playing, by seat number) every round.
	button := c.button
	switch {
	case c.rounds > 0:
		button = order[0]
		for _, s := range order {
			if s > c.button {
				button = s
				break
			}
		}
	case !c.buttonSet:
		button = order[len(order)-1]
	}
	// The order of play: the first seat on the button's left, round the table.
	slices.SortFunc(order, func(a, b int) int { return (a-button-1+c.seatN)%c.seatN - (b-button-1+c.seatN)%c.seatN })
	fresh := &Circle{game: c.game, cfg: c.cfg, seatN: c.seatN, button: button, buttonSet: c.buttonSet, rounds: c.rounds + 1, sb: c.sb, bb: c.bb,
		minBet: c.minBet, rakeBP: c.rakeBP, rakeCap: c.rakeCap, streets: c.streets, began: true}
	for _, s := range order {
		fresh.players = append(fresh.players, bySeat[s])
	}
	*c = *fresh
	c.button = button
	for _, p := range c.players {
		c.put(p, p.ante)
		p.bet = 0 // antes are not part of the first street's betting
	}
	if c.bb > 0 {
		sbi, bbi := 0, 1
		if len(c.players) == 2 { // heads-up: the button posts the small blind
			sbi, bbi = 1, 0
		}
		c.players[sbi].blind, c.players[bbi].blind = "small blind", "big blind"
		c.put(c.players[sbi], c.sb)
		c.put(c.players[bbi], c.bb)
	}
	c.startStreet()
	return nil
}

// put moves up to amount from p's stack into the pots.
func (c *Circle) put(p *player, amount int64) {
	amount = min(amount, p.stack)
	p.stack -= amount
	p.contrib += amount
	p.bet += amount
	if p.stack == 0 {
		p.allIn = true
	}
}

// live returns the seats still in the hand.
func (c *Circle) live() []*player {
	var out []*player
	for _, p := range c.players {
		if !p.folded {
			out = append(out, p)
		}
	}
	return out
}

// startStreet queues the street's cards.
func (c *Circle) startStreet() {
	st := c.streets[c.street]
	if st.burn {
		c.queue = append(c.queue, games.Need{Kind: games.NeedBurn})
	}
	for range st.board {
		c.queue = append(c.queue, games.Need{Kind: games.NeedCard, To: placeBoard, Face: games.FaceUp})
	}
	for _, f := range st.each {
		for _, p := range c.players {
			if !p.folded {
				c.queue = append(c.queue, games.Need{Kind: games.NeedCard, To: placeBox(p.seat), Face: f})
			}
		}
	}
}

// Need says what the round waits for.
func (c *Circle) Need() games.Need {
	if len(c.queue) > 0 {
		return c.queue[0]
	}
	if c.betting {
		p := c.players[c.actor]
		return games.Need{Kind: games.NeedDecision, Seat: p.seat, Options: c.options(p)}
	}
	return games.Need{Kind: games.NeedDone}
}

// options lists what p may do now.
func (c *Circle) options(p *player) []string {
	toCall := c.maxBet - p.bet
	var out []string
	if toCall > 0 {
		out = append(out, "fold", "call")
	} else {
		out = append(out, "check", "fold")
	}
	if lo, hi, ok := c.raiseRange(p); ok {
		verb := "raise"
		if c.maxBet == 0 {
			verb = "bet"
		}
		out = append(out, fmt.Sprintf("%s:%d-%d", verb, lo, hi))
	}
	if p.stack > 0 && (p.canRaise || p.stack <= toCall) {
		out = append(out, "allin")
	}
	return out
}

// raiseRange returns the whole-street bets p may raise (or bet) to: from the last raise over the
// bet to all its chips; ok is false when p may not raise.
func (c *Circle) raiseRange(p *player) (lo, hi int64, ok bool) {
	hi = p.bet + p.stack
	if !p.canRaise || hi <= c.maxBet {
		return 0, 0, false
	}
	lo = c.maxBet + c.minRaise
	if c.maxBet == 0 {
		lo = c.minBet
	}
	return min(lo, hi), hi, true
}

// Card applies the next card from the shoe.
func (c *Circle) Card(cd card.Card) (games.Step, error) {
	n := c.Need()
	if n.Kind != games.NeedCard {
		return games.Step{}, games.OutOfTurn(c.game, cd, "the round is waiting for "+n.String())
	}
	i, err := c.dealt.take(c.game, cd)
	if err != nil {
		return games.Step{}, err
	}
	c.queue = c.queue[1:]
	if n.To.Name == "board" {
		c.board = append(c.board, cd)
		c.boardIdx = append(c.boardIdx, i)
	} else {
		p := c.player(n.To.Seat)
		p.cards = append(p.cards, cd)
		p.idx = append(p.idx, i)
		p.face = append(p.face, n.Face)
	}
	return c.advance(), nil
}

// Burn applies a burn the round asked for (hold'em and the 2+3 game, RULES.md §1).
func (c *Circle) Burn(cd card.Card) (games.Step, error) {
	n := c.Need()
	if n.Kind != games.NeedBurn {
		return games.Step{}, games.OutOfTurn(c.game, cd, "no burn due: the round is waiting for "+n.String())
	}
	if err := c.dealt.burn(c.game, cd); err != nil {
		return games.Step{}, err
	}
	c.queue = c.queue[1:]
	return c.advance(), nil
}

func (c *Circle) player(seat int) *player {
	for _, p := range c.players {
		if p.seat == seat {
			return p
		}
	}
	return nil
}

// Decide applies a seat's betting decision.
func (c *Circle) Decide(seat int, decision string) (games.Step, error) {
	n := c.Need()
	if n.Kind != games.NeedDecision || n.Seat != seat {
		return games.Step{}, c.refuse(seat, decision, "not this seat's turn: the round is waiting for "+n.String())
	}
	p := c.players[c.actor]
	d := strings.ToLower(strings.TrimSpace(decision))
	verb, arg, hasArg := strings.Cut(d, ":")
	toCall := c.maxBet - p.bet
	allowed := "allowed now: " + strings.Join(n.Options, " ")
	switch {
	case verb == "fold" && !hasArg:
		p.folded = true
	case verb == "check" && !hasArg:
		if toCall > 0 {
			return games.Step{}, c.refuse(seat, decision, fmt.Sprintf("cannot check: %d to call (%s)", toCall, allowed))
		}
	case verb == "call" && !hasArg:
		if toCall == 0 {
			return games.Step{}, c.refuse(seat, decision, "nothing to call: check or bet ("+allowed+")")
		}
		c.put(p, toCall)
	case verb == "allin" && !hasArg:
		if p.stack == 0 || !p.canRaise && p.stack > toCall {
			return games.Step{}, c.refuse(seat, decision, "the seat may not raise now ("+allowed+")")
		}
		c.raiseTo(p, p.bet+p.stack)
	case (verb == "bet" || verb == "raise") && hasArg:
		if (verb == "bet") != (c.maxBet == 0) {
			return games.Step{}, c.refuse(seat, decision, "a bet opens a street, a raise answers a bet ("+allowed+")")
		}
		to, err := strconv.ParseInt(arg, 10, 64)
		lo, hi, ok := c.raiseRange(p)
		switch {
		case !ok:
			return games.Step{}, c.refuse(seat, decision, "the seat may not raise now: an all-in for less does not reopen the betting ("+allowed+")")
		case err != nil || to < lo || to > hi:
			return games.Step{}, c.refuse(seat, decision, fmt.Sprintf("the seat's whole bet on this street must be %d to %d cents", lo, hi))
		}
		c.raiseTo(p, to)
	default:
		return games.Step{}, c.refuse(seat, decision, "unknown decision ("+allowed+")")
	}
	p.lastAction = d
	p.needs, p.canRaise = false, false
	if len(c.live()) == 1 {
		c.betting = false
		c.done = true
		return games.Step{Say: []games.Msg{games.M("poker.uncontested", games.N("seat", c.live()[0].seat))}}, nil
	}
	c.nextActor()
	return c.advance(), nil
}

var _ games.Layout = (*Circle)(nil)

// Spots returns the spots of a seat before the deal: its stack and an ante.
func (c *Circle) Spots() []string { return []string{SpotStack, SpotAnte} }

// Limits returns the limits in force.
func (c *Circle) Limits() []games.Limit { return slices.Clone(c.cfg.Limits) }

// SetLimits replaces the limits from the next round on.
func (c *Circle) SetLimits(ls []games.Limit) error {
	cfg, err := c.cfg.WithLimits(ls, c.Spots())
	if err != nil {
		return err
	}
	c.cfg = cfg
	return nil
}

// raiseTo makes p's bet on the street to (all its chips at most); a full raise reopens the
// betting, an all-in for less only asks the others to answer it.
func (c *Circle) raiseTo(p *player, to int64) {
	c.put(p, to-p.bet)
	if p.bet <= c.maxBet {
		return // an all-in that does not even call
	}
	raise := p.bet - c.maxBet
	full := raise >= c.minRaise || c.maxBet == 0 && p.bet >= c.minBet
	c.maxBet = p.bet
	if full {
		c.minRaise = max(raise, c.minRaise)
	}
	for _, q := range c.players {
		if q != p && !q.folded && !q.allIn {
			q.needs = true
			if full {
				q.canRaise = true
			}
		}
	}
}

// nextActor moves to the next seat that owes a decision, or ends the betting round.
func (c *Circle) nextActor() {
	for i := 1; i <= len(c.players); i++ {
		j := (c.actor + i) % len(c.players)
		if q := c.players[j]; q.needs && !q.folded && !q.allIn {
			c.actor = j
			return
		}
	}
	c.betting = false
	for _, q := range c.players {
		q.bet = 0
	}
	c.street++
	if c.street < len(c.streets) {
		c.startStreet()
	} else {
		c.done = true
	}
}

// advance starts the betting once a street's cards are in, or deals on when nobody can bet.
func (c *Circle) advance() games.Step {
	var step games.Step
	for len(c.queue) == 0 && !c.betting && !c.done {
		c.startBetting()
		if !c.betting {
			c.street++
			if c.street == len(c.streets) {
				c.done = true
			} else {
				c.startStreet()
			}
		}
	}
	if c.done && len(c.queue) == 0 && len(c.live()) > 1 {
		step.Reveal = c.reveal()
		step.Say = append(step.Say, games.M("poker.showdown"))
	}
	return step
}

// startBetting opens the street's betting round, unless at most one seat can still bet and it
// owes nothing.
func (c *Circle) startBetting() {
	var can []*player
	for _, p := range c.players {
		if !p.folded && !p.allIn {
			can = append(can, p)
		}
	}
	c.maxBet = 0
	for _, p := range c.players {
		c.maxBet = max(c.maxBet, p.bet)
	}
	if len(can) == 0 || len(can) == 1 && can[0].bet >= c.maxBet {
		return
	}
	c.minRaise = max(c.bb, c.minBet)
	for _, p := range can {
		p.needs, p.canRaise = true, true
	}
	c.actor = c.firstToAct()
	if q := c.players[c.actor]; q.folded || q.allIn {
		c.nextActorFrom(c.actor)
	}
	c.betting = true
}

// nextActorFrom moves the actor to the first seat after i that can act.
func (c *Circle) nextActorFrom(i int) {
	for k := 1; k <= len(c.players); k++ {
		j := (i + k) % len(c.players)
		if q := c.players[j]; !q.folded && !q.allIn {
			c.actor = j
			return
		}
	}
}

// firstToAct returns the index of the seat that opens the street's betting (see Circle).
func (c *Circle) firstToAct() int {
	switch c.game {
	case Holdem, Omaha23:
		if c.street == 0 && c.bb > 0 {
			if len(c.players) == 2 {
				return 1 // heads-up: the button (small blind) acts first before the flop
			}
			return 2 % len(c.players) // left of the big blind
		}
		return 0
	}
	// Stud: by the open cards.
	best, bestKey := -1, int64(0)
	for i, p := range c.players {
		if p.folded {
			continue
		}
		var open []card.Card
		for j, cd := range p.cards {
			if p.face[j] == games.FaceUp {
				open = append(open, cd)
			}
		}
		var key int64
		if c.game == SevenCardStud && c.street == 0 {
			// The lowest open card: negate (rank, suit) so that the lowest scores highest.
			cd := open[len(open)-1]
			key = -int64(value(cd.Rank())*4 + (3 - int(cd.Suit())))
		} else {
			r, err := hand.Partial(open...)
			if err != nil {
				continue
			}
			key = int64(r)
		}
		if best < 0 || key > bestKey {
			best, bestKey = i, key
		}
	}
	return max(best, 0)
}

// reveal lists the closed cards of the seats still in the hand at the showdown.
func (c *Circle) reveal() []int {
	var out []int
	for _, p := range c.live() {
		for j, i := range p.idx {
			if p.face[j] == games.FaceDown {
				out = append(out, i)
			}
		}
	}
	slices.Sort(out)
	return out
}

// rank ranks a seat's hand at the showdown.
func (c *Circle) rank(p *player) (hand.Rank, []card.Card) {
	var best []card.Card
	var r hand.Rank
	var err error
	switch c.game {
	case Omaha23:
		best, r, err = hand.BestOmaha(p.cards, c.board)
	default:
		best, r, err = hand.Best(append(slices.Clone(p.cards), c.board...))
	}
	if err != nil {
		return 0, nil
	}
	return r, best
}

// CircleDetail is Outcome.Detail for the circle games.
type CircleDetail struct {
	Button   int   `json:"button"`
	Pots     []Pot `json:"pots"`
	Rake     int64 `json:"rake"`
	Returned *struct {
		Seat   int   `json:"seat"`
		Amount int64 `json:"amount"`
	} `json:"returned,omitempty"` // an uncalled bet given back
	Best map[int][]card.Card `json:"best,omitempty"` // the five cards each hand at the showdown plays
}

// Outcome settles the round: the pots, their rake and their winners.
func (c *Circle) Outcome() (*games.Outcome, error) {
	if !c.began || !c.done {
		return nil, notReady(c.game, c.Need())
	}
	o := &games.Outcome{Game: c.game, Hands: []games.Hand{}, Settlements: []games.Settlement{}}
	d := &CircleDetail{Button: c.button}
	if len(c.board) > 0 {
		o.Hands = append(o.Hands, games.Hand{Name: "board", Cards: c.board})
	}
	var cs []Contribution
	var order []int
	for _, p := range c.players {
		cs = append(cs, Contribution{Seat: p.seat, Amount: p.contrib, Folded: p.folded})
		order = append(order, p.seat)
	}
	put := map[int]int64{}
	for _, x := range cs {
		put[x.Seat] = x.Amount
	}
	if seat, amount := Uncalled(cs); amount > 0 {
		for i := range cs {
			if cs[i].Seat == seat {
				cs[i].Amount -= amount
			}
		}
		put[seat] -= amount
		d.Returned = &struct {
			Seat   int   `json:"seat"`
			Amount int64 `json:"amount"`
		}{seat, amount}
	}
	pots := BuildPots(cs)
	d.Rake = Rake(pots, c.rakeBP, c.rakeCap)
	live := c.live()
	showdown := len(live) > 1
	ranks := map[int]hand.Rank{}
	if showdown {
		d.Best = map[int][]card.Card{}
		for _, p := range live {
			r, best := c.rank(p)
			ranks[p.seat] = r
			d.Best[p.seat] = best
		}
	}
	Award(pots, ranks, order)
	d.Pots = pots
	if d.Pots == nil {
		d.Pots = []Pot{}
	}
	won := map[int]int64{}
	shared := map[int]bool{}
	for _, pot := range pots {
		for _, s := range pot.Shares {
			won[s.Seat] += s.Amount
			if len(pot.Shares) > 1 {
				shared[s.Seat] = true
			}
		}
	}
	seats := slices.Clone(c.players)
	slices.SortFunc(seats, func(a, b *player) int { return a.seat - b.seat })
	for _, p := range seats {
		h := games.Hand{Seat: p.seat, Cards: p.cards}
		switch {
		case p.folded:
			h.Outcome = "fold"
		case won[p.seat] > 0 && shared[p.seat]:
			h.Outcome = "split"
		case won[p.seat] > 0:
			h.Outcome = "win"
		default:
			h.Outcome = "lose"
		}
		if showdown && !p.folded {
			h.Category = ranks[p.seat].Category().String()
		}
		o.Hands = append(o.Hands, h)
		o.Settlements = append(o.Settlements, games.Settlement{Seat: p.seat, Spot: SpotPot, Amount: put[p.seat], Net: won[p.seat] - put[p.seat]})
	}
	if showdown {
		o.Result = "showdown"
	} else {
		o.Result = fmt.Sprintf("seat %d wins uncontested", live[0].seat)
	}
	o.Detail = d
	return o, nil
}

var _ games.Persistent = (*Circle)(nil)

// circleState is what a circle game keeps from one round to the next: where the button is.
type circleState struct {
	Button int `json:"button"`
	Rounds int `json:"rounds"`
}

// Snapshot returns the button's seat and the rounds played, the state a restarted daemon gives
// back (games.Persistent).
func (c *Circle) Snapshot() (json.RawMessage, error) {
	if c.rounds == 0 {
		return nil, nil
	}
	return json.Marshal(circleState{Button: c.button, Rounds: c.rounds})
}

// Restore puts the button back where Snapshot found it.
func (c *Circle) Restore(b json.RawMessage) error {
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	var s circleState
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("poker: restoring the button: %w", err)
	}
	if s.Button < 1 || s.Button > c.seatN || s.Rounds < 1 {
		return fmt.Errorf("poker: restoring the button: seat %d of %d after %d rounds", s.Button, c.seatN, s.Rounds)
	}
	c.button, c.rounds = s.Button, s.Rounds
	return nil
}
