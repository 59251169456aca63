package poker

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/poker/hand"
	"github.com/sabot-tables/sabot/games/progressive"
	"github.com/sabot-tables/sabot/shoe/card"
)

// House engine options (games.Config.Options). Pay tables are written
// "category=pays,category=pays" (hand.ParseCategory names, "X to 1" pays) and replace only the
// categories they name.
const (
	// OptSeats is the number of boxes at the table, numbered 1…N from the croupier's left
	// (default 7).
	OptSeats = "seats"
	// OptBetPays is Caribbean stud's and draw poker's pay table for the bet (RULES.md §5): default
	// high-card=1 (a winning ace-king), pair=1, two-pair=2, three-of-a-kind=3, straight=4,
	// flush=5, full-house=7, four-of-a-kind=20, straight-flush=50, royal-flush=100.
	OptBetPays = "bet-pays"
	// OptAnteBonus is three card poker's ante bonus (default straight=1, three-of-a-kind=4,
	// straight-flush=5) and OptPairPlusPays its pair plus table (default pair=1, flush=4,
	// straight=6, three-of-a-kind=30, straight-flush=40).
	OptAnteBonus    = "ante-bonus"
	OptPairPlusPays = "pair-plus-pays"
	// OptPays is Go poker's table (default pair=1 (tens or better), two-pair=2,
	// three-of-a-kind=3, straight=5, flush=8, full-house=11, four-of-a-kind=50,
	// straight-flush=200, royal-flush=1000) and OptMinPair the lowest pair it pays (default T).
	OptPays    = "pays"
	OptMinPair = "min-pair"
	// OptVoid lists the hands found with a wrong number of cards once the deal is complete:
	// seat numbers and/or "dealer" ("2,5", "dealer"). A void seat's bets are all returned; a void
	// dealer's hand voids the whole round (seed 002: "Cualquier cantidad incorrecta de cartas que
	// reciba un jugador, anulara la mano de dicho jugador … el Dealer, anulara toda la mano").
	// The daemon calls House.Void instead when the dealer declares it.
	OptVoid = "void"
	// OptProgressivePool is the progressive main pool, in cents, when this round's prizes are
	// paid (after this round's bets fed it); needed only when a hand wins a percentage prize.
	// OptProgressivePrizes is the prize table (progressive.ParseTable; default
	// progressive.DefaultTable).
	OptProgressivePool   = "progressive-pool"
	OptProgressivePrizes = "progressive-prizes"
	// OptProgressive says who pays the progressive: "engine" (default: the round contract, with
	// the pool's value in OptProgressivePool) or "controller" (a live table connected to a
	// floor's controller: Outcome leaves the progressive bets out, Claims lists them).
	OptProgressive = "progressive"
)

// Default pay tables (RULES.md §5).
var (
	DefaultBetPays = PayTable{hand.HighCard: 1, hand.Pair: 1, hand.TwoPair: 2, hand.ThreeOfAKind: 3, hand.Straight: 4,
		hand.Flush: 5, hand.FullHouse: 7, hand.FourOfAKind: 20, hand.StraightFlush: 50, hand.RoyalFlush: 100}
	DefaultAnteBonus    = PayTable{hand.Straight: 1, hand.ThreeOfAKind: 4, hand.StraightFlush: 5}
	DefaultPairPlusPays = PayTable{hand.Pair: 1, hand.Flush: 4, hand.Straight: 6, hand.ThreeOfAKind: 30, hand.StraightFlush: 40}
	DefaultGoPays       = PayTable{hand.Pair: 1, hand.TwoPair: 2, hand.ThreeOfAKind: 3, hand.Straight: 5, hand.Flush: 8,
		hand.FullHouse: 11, hand.FourOfAKind: 50, hand.StraightFlush: 200, hand.RoyalFlush: 1000}
)

type housePhase uint8

const (
	phaseIdle   housePhase = iota // before Begin
	phaseDeal                     // dealing the hands
	phaseDecide                   // the seats' decisions
	phaseDraw                     // draw poker's replacement cards
	phaseDone
)

// House is a poker game against the house (RULES.md §5): caribbean-stud, draw-poker,
// three-card-poker or go-poker.
//
// Cards are dealt one at a time round the table, seats in order, the dealer last (RULES.md §5);
// players' cards face down, the dealer's face down but for Caribbean stud's last card; Go poker's
// two community cards go face up to the board after the hole cards. Then each seat with an ante
// decides in seat order: "bet" or "fold" (Caribbean stud, draw poker), "play" or "fold" (three
// card poker); in draw poker a bet is followed by "exchange:Kd,3c" (0–2 cards; "exchange:" keeps
// all five), and the replacements are dealt once every seat has decided, seat by seat (seed 000:
// "Comenzando de izquierda a derecha de la banca … de una en una"). The last card or decision
// turns up every live hand (Step.Reveal).
//
// The progressive side bet (Caribbean stud, draw poker, Go poker; RULES.md §7) is settled on the
// seat's final five cards (after draw poker's exchange; Go poker's with the two community cards)
// through progressive.Table.Pay; a folded hand wins no progressive prize (its cards go to the
// discards unseen, seed 000), a void one has the bet returned. For `sabot games round` the pool's
// value comes from OptProgressivePool; at a live table the pool's ledger
// (games/progressive/ledger) settles the same bets durably.
type House struct {
	game  string
	cfg   games.Config
	seatN int

	betPays, anteBonus, pairPlus, goPays PayTable
	minPair                              int // Go poker's lowest paying pair, 2…14
	void                                 []int
	progPool                             int64
	progPoolSet                          bool
	progPrizes                           progressive.Table
	progController                       bool // a floor's controller pays the progressive (Claims)
	claims                               []games.Claim

	phase     housePhase
	seats     []*houseSeat
	dealer    []card.Card
	dealerIdx []int
	board     []card.Card
	queue     []games.Need
	dealt     dealt
	voidRound bool
}

type houseSeat struct {
	seat                  int
	ante, pairPlus, prog  int64
	cards                 []card.Card
	idx                   []int // the cards' indexes in the round
	folded, played, void  bool
	asked                 int // decisions taken: 1 after bet/play/fold, 2 after the exchange
	discards              []card.Card
	replacementsRemaining int
}

var (
	_ games.Engine  = (*House)(nil)
	_ games.Claimer = (*House)(nil)
)

// Claims returns the round's progressive bets with their hands, for a floor's controller
// (OptProgressive "controller"), once Outcome has settled the rest of the round.
func (h *House) Claims() []games.Claim { return h.claims }

// NewHouse makes a house-banked poker engine for cfg.Game (one of HouseGames).
func NewHouse(cfg games.Config) (*House, error) {
	if !slices.Contains(HouseGames, cfg.Game) {
		return nil, fmt.Errorf("poker: %q is not a house poker game (%s)", cfg.Game, strings.Join(HouseGames, ", "))
	}
	if cfg.Rules != "" {
		return nil, fmt.Errorf("poker: %s has no rule presets (got %q)", cfg.Game, cfg.Rules)
	}
	if cfg.Decks != 0 && cfg.Decks != 1 {
		return nil, fmt.Errorf("poker: %s is dealt from one deck, not %d (RULES.md §1)", cfg.Game, cfg.Decks)
	}
	known := []string{OptSeats, OptVoid}
	switch cfg.Game {
	case CaribbeanStud, DrawPoker:
		known = append(known, OptBetPays, OptProgressivePool, OptProgressivePrizes, OptProgressive)
	case ThreeCardPoker:
		known = append(known, OptAnteBonus, OptPairPlusPays)
	case GoPoker:
		known = append(known, OptPays, OptMinPair, OptProgressivePool, OptProgressivePrizes, OptProgressive)
	}
	o, err := newOptions(cfg.Game, cfg.Options, known...)
	if err != nil {
		return nil, err
	}
	h := &House{game: cfg.Game, cfg: cfg, minPair: 10, progPrizes: progressive.DefaultTable()}
	n, err := o.int(OptSeats, 7, 1, 12)
	if err != nil {
		return nil, err
	}
	h.seatN = int(n)
	if h.betPays, err = o.payTable(OptBetPays, DefaultBetPays); err != nil {
		return nil, err
	}
	if h.anteBonus, err = o.payTable(OptAnteBonus, DefaultAnteBonus); err != nil {
		return nil, err
	}
	if h.pairPlus, err = o.payTable(OptPairPlusPays, DefaultPairPlusPays); err != nil {
		return nil, err
	}
	if h.goPays, err = o.payTable(OptPays, DefaultGoPays); err != nil {
		return nil, err
	}
	if s, ok := cfg.Options[OptMinPair]; ok {
		c, err := card.Parse(s + "s")
		if err != nil {
			return nil, fmt.Errorf("poker: %s: option %s: %q is not a rank (2 … A)", cfg.Game, OptMinPair, s)
		}
		h.minPair = int(c.Rank())
		if c.Rank() == card.Ace {
			h.minPair = 14
		}
	}
	if h.void, err = o.seats(OptVoid, cfg.Game != GoPoker); err != nil {
		return nil, err
	}
	if o.has(OptProgressivePool) {
		if h.progPool, err = o.int(OptProgressivePool, 0, 0, 1<<53); err != nil {
			return nil, err
		}
		h.progPoolSet = true
	}
	if s, ok := cfg.Options[OptProgressivePrizes]; ok {
		if h.progPrizes, err = progressive.ParseTable(s); err != nil {
			return nil, fmt.Errorf("poker: %s: option %s: %w", cfg.Game, OptProgressivePrizes, err)
		}
	}
	switch cfg.Options[OptProgressive] {
	case "", "engine":
	case "controller":
		h.progController = true
	default:
		return nil, fmt.Errorf("poker: %s: option %s: %q, want engine or controller", cfg.Game, OptProgressive, cfg.Options[OptProgressive])
	}
	return h, nil
}

// Game returns the game id.
func (h *House) Game() string { return h.game }

// Rules returns "": the house games have no presets.
func (h *House) Rules() string { return "" }

func (h *House) refuse(seat int, what, rule string) error {
	return &games.RuleError{Game: h.game, Seat: seat, What: what, Rule: rule}
}

// spots returns the spots a bet may be placed on in this game.
func (h *House) spots() []string {
	switch h.game {
	case ThreeCardPoker:
		return []string{SpotAnte, SpotPairPlus}
	}
	return []string{SpotAnte, SpotProgressive}
}

// cardsEach is how many cards each hand is dealt.
func (h *House) cardsEach() int {
	switch h.game {
	case ThreeCardPoker, GoPoker:
		return 3
	}
	return 5
}

// Begin validates the bets and lays out the deal.
func (h *House) Begin(bets []games.Bet) error {
	bySeat := map[int]*houseSeat{}
	for _, b := range bets {
		what := fmt.Sprintf("%s %d", b.Spot, b.Amount)
		switch {
		case b.Spot == SpotBet || b.Spot == SpotPlay:
			return h.refuse(b.Seat, what, fmt.Sprintf("the %s is placed by the seat's decision, not before the deal (RULES.md §8)", b.Spot))
		case !slices.Contains(h.spots(), b.Spot):
			return h.refuse(b.Seat, what, fmt.Sprintf("unknown spot for %s (spots: %s)", h.game, strings.Join(h.spots(), ", ")))
		}
		if err := h.cfg.CheckBet(b); err != nil {
			return err
		}
		if b.Seat > h.seatN {
			return h.refuse(b.Seat, what, fmt.Sprintf("the table has boxes 1–%d", h.seatN))
		}
		s := bySeat[b.Seat]
		if s == nil {
			s = &houseSeat{seat: b.Seat}
			bySeat[b.Seat] = s
		}
		slot := map[string]*int64{SpotAnte: &s.ante, SpotPairPlus: &s.pairPlus, SpotProgressive: &s.prog}[b.Spot]
		if *slot != 0 {
			return h.refuse(b.Seat, what, "a second bet on the same spot (one bet per spot and box)")
		}
		*slot = b.Amount
	}
	seats := make([]*houseSeat, 0, len(bySeat))
	for _, s := range bySeat {
		if s.prog > 0 && s.ante == 0 {
			return h.refuse(s.seat, fmt.Sprintf("%s %d", SpotProgressive, s.prog), "the progressive is a side bet on the box's hand: it needs an ante (RULES.md §7)")
		}
		seats = append(seats, s)
	}
	slices.SortFunc(seats, func(a, b *houseSeat) int { return a.seat - b.seat })
	for _, v := range h.void {
		if v != 0 && !slices.ContainsFunc(seats, func(s *houseSeat) bool { return s.seat == v }) {
			return fmt.Errorf("poker: %s: option %s: seat %d has no bet", h.game, OptVoid, v)
		}
	}
	*h = House{game: h.game, cfg: h.cfg, seatN: h.seatN, betPays: h.betPays, anteBonus: h.anteBonus, pairPlus: h.pairPlus,
		goPays: h.goPays, minPair: h.minPair, void: h.void, progPool: h.progPool, progPoolSet: h.progPoolSet,
		progPrizes: h.progPrizes, progController: h.progController, seats: seats, phase: phaseDeal}
	if len(seats) == 0 {
		h.phase = phaseDone
		return nil
	}
	// RULES.md §5: one at a time round the table, seats in order, the dealer last.
	for i := range h.cardsEach() {
		for _, s := range seats {
			h.queue = append(h.queue, games.Need{Kind: games.NeedCard, To: placeBox(s.seat), Face: games.FaceDown})
		}
		if h.game != GoPoker {
			face := games.FaceDown
			if h.game == CaribbeanStud && i == 4 {
				face = games.FaceUp // seed 002: "El Dealer también recibe 5 cartas, una de ellas descubierta"
			}
			h.queue = append(h.queue, games.Need{Kind: games.NeedCard, To: placeDealer, Face: face})
		}
	}
	if h.game == GoPoker {
		for range 2 {
			h.queue = append(h.queue, games.Need{Kind: games.NeedCard, To: placeBoard, Face: games.FaceUp})
		}
	}
	return nil
}

// Need says what the round waits for.
func (h *House) Need() games.Need {
	if len(h.queue) > 0 {
		return h.queue[0]
	}
	if h.phase == phaseDecide {
		if s, opts := h.pending(); s != nil {
			return games.Need{Kind: games.NeedDecision, Seat: s.seat, Options: opts}
		}
	}
	return games.Need{Kind: games.NeedDone}
}

// pending returns the first seat that owes a decision and the decisions it may take.
func (h *House) pending() (*houseSeat, []string) {
	for _, s := range h.seats {
		if s.void || s.ante == 0 || s.folded {
			continue
		}
		switch {
		case s.asked == 0 && h.game == ThreeCardPoker:
			return s, []string{"play", "fold"}
		case s.asked == 0 && (h.game == CaribbeanStud || h.game == DrawPoker):
			return s, []string{"bet", "fold"}
		case s.asked == 1 && h.game == DrawPoker:
			return s, exchangeOptions(s.cards)
		}
	}
	return nil, nil
}

// exchangeOptions lists the exchanges of 0–2 of the cards.
func exchangeOptions(cs []card.Card) []string {
	out := []string{"exchange:"}
	for i := range cs {
		out = append(out, "exchange:"+cs[i].String())
	}
	for i := range cs {
		for j := i + 1; j < len(cs); j++ {
			out = append(out, "exchange:"+cs[i].String()+","+cs[j].String())
		}
	}
	return out
}

// Card applies the next card from the shoe.
func (h *House) Card(c card.Card) (games.Step, error) {
	n := h.Need()
	if n.Kind != games.NeedCard {
		return games.Step{}, games.OutOfTurn(h.game, c, "the round is waiting for "+n.String())
	}
	i, err := h.dealt.take(h.game, c)
	if err != nil {
		return games.Step{}, err
	}
	h.queue = h.queue[1:]
	switch n.To.Name {
	case "dealer":
		h.dealer = append(h.dealer, c)
		h.dealerIdx = append(h.dealerIdx, i)
	case "board":
		h.board = append(h.board, c)
	default:
		s := h.seat(n.To.Seat)
		s.cards = append(s.cards, c)
		s.idx = append(s.idx, i)
	}
	return h.advance(), nil
}

// Burn refuses: the house games burn no card inside a round.
func (h *House) Burn(c card.Card) (games.Step, error) {
	return games.Step{}, games.OutOfTurn(h.game, c, "no burn in "+h.game+" (RULES.md §1): the round is waiting for "+h.Need().String())
}

func (h *House) seat(n int) *houseSeat {
	for _, s := range h.seats {
		if s.seat == n {
			return s
		}
	}
	return nil
}

// Decide applies a seat's decision.
func (h *House) Decide(seat int, decision string) (games.Step, error) {
	n := h.Need()
	if n.Kind != games.NeedDecision || n.Seat != seat {
		return games.Step{}, h.refuse(seat, decision, "not this seat's decision: the round is waiting for "+n.String())
	}
	s := h.seat(seat)
	d := strings.TrimSpace(decision)
	if s.asked == 1 { // draw poker: the exchange
		const prefix = "exchange:"
		if len(d) < len(prefix) || !strings.EqualFold(d[:len(prefix)], prefix) {
			if strings.EqualFold(d, "fold") {
				return games.Step{}, h.refuse(seat, decision, "a fold after the bet: the bet stands; exchange 0–2 cards (\"exchange:Kd,3c\", or \"exchange:\" to keep all five; RULES.md §8)")
			}
			return games.Step{}, h.refuse(seat, decision, "after the bet the seat exchanges 0–2 cards: \"exchange:Kd,3c\", or \"exchange:\" to keep all five (RULES.md §8)")
		}
		out, err := h.parseExchange(s, decision, d[len(prefix):])
		if err != nil {
			return games.Step{}, err
		}
		s.discards = out
		s.asked = 2
		return h.advance(), nil
	}
	switch want := n.Options[0]; strings.ToLower(d) {
	case want: // "bet" or "play"
		amount, spot := 2*s.ante, SpotBet // RULES.md §5: bet 2 × ante
		if h.game == ThreeCardPoker {
			amount, spot = s.ante, SpotPlay // play = ante
		}
		if err := h.cfg.CheckBet(games.Bet{Seat: seat, Spot: spot, Amount: amount}); err != nil {
			return games.Step{}, err
		}
		s.played = true
	case "fold":
		s.folded = true
	default:
		return games.Step{}, h.refuse(seat, decision, fmt.Sprintf("the seat may %s or fold (RULES.md §5, §8)", want))
	}
	s.asked = 1
	if h.game != DrawPoker || s.folded {
		s.asked = 2
	}
	return h.advance(), nil
}

// parseExchange reads the cards named after "exchange:": 0–2 distinct cards of the seat's hand.
func (h *House) parseExchange(s *houseSeat, decision, list string) ([]card.Card, error) {
	cs, err := card.ParseList(list)
	if err != nil {
		return nil, h.refuse(s.seat, "exchange", fmt.Sprintf("not a list of cards: %v", err))
	}
	if len(cs) > 2 {
		return nil, h.refuse(s.seat, "exchange", fmt.Sprintf("an exchange of %d cards: at most two (RULES.md §5 draw-poker; seed 000 \"a lo más, dos cartas\")", len(cs)))
	}
	for i, c := range cs {
		if !slices.Contains(s.cards, c) {
			// The words name no card: a refusal may reach a feed (RULES.md §1 "Hidden cards").
			return nil, h.refuse(s.seat, "exchange", fmt.Sprintf("card %d of the exchange is not in the seat's hand", i+1))
		}
		if slices.Contains(cs[:i], c) {
			return nil, h.refuse(s.seat, "exchange", fmt.Sprintf("card %d of the exchange is named twice", i+1))
		}
	}
	return cs, nil
}

// Void declares a hand with a wrong number of cards (seed 002): seat 0 is the dealer, whose void
// hand voids the whole round; a seat's void hand has all its bets returned. A void hand takes no
// more cards and no decision. It is refused once the round is complete. The Step says what turns
// face up when the void ends the round's decisions.
func (h *House) Void(seat int) (games.Step, error) {
	if h.phase == phaseIdle || h.phase == phaseDone {
		return games.Step{}, h.refuse(seat, "void", "no round in progress")
	}
	if seat == 0 {
		if h.game == GoPoker {
			return games.Step{}, h.refuse(0, "void dealer", "Go poker has no dealer hand")
		}
		h.voidRound = true
		h.queue = nil
		h.phase = phaseDone
		return games.Step{Say: []games.Msg{games.M("poker.dealer-void")}}, nil
	}
	s := h.seat(seat)
	if s == nil {
		return games.Step{}, h.refuse(seat, "void", "the seat has no bet this round")
	}
	s.void = true
	h.queue = slices.DeleteFunc(h.queue, func(n games.Need) bool { return n.To.Name == "box" && n.To.Seat == seat })
	step := h.advance()
	step.Say = append([]games.Msg{games.M("poker.seat-void", games.N("seat", seat))}, step.Say...)
	return step, nil
}

// advance moves the round on once the cards asked for are in and no decision is owed, and
// returns what turns face up.
func (h *House) advance() games.Step {
	var step games.Step
	for len(h.queue) == 0 && h.phase != phaseDone {
		switch h.phase {
		case phaseDeal:
			h.phase = phaseDecide
			for _, v := range h.void { // OptVoid: found once the deal is complete
				if v == 0 {
					h.voidRound = true
					h.phase = phaseDone
					step.Say = append(step.Say, games.M("poker.dealer-void"))
					return step
				}
				h.seat(v).void = true
				step.Say = append(step.Say, games.M("poker.seat-void", games.N("seat", v)))
			}
		case phaseDecide:
			if s, _ := h.pending(); s != nil {
				return step
			}
			h.phase = phaseDraw
			for _, s := range h.seats { // seat by seat, one card at a time
				if !s.void && s.played {
					for range s.discards {
						h.queue = append(h.queue, games.Need{Kind: games.NeedCard, To: placeBox(s.seat), Face: games.FaceDown})
					}
					if len(s.discards) > 0 {
						kept := slices.DeleteFunc(slices.Clone(s.cards), func(c card.Card) bool { return slices.Contains(s.discards, c) })
						var keptIdx []int
						for i, c := range s.cards {
							if !slices.Contains(s.discards, c) {
								keptIdx = append(keptIdx, s.idx[i])
							}
						}
						s.cards, s.idx = kept, keptIdx
					}
				}
			}
		case phaseDraw:
			h.phase = phaseDone
			step.Reveal = h.reveal()
			if h.game != GoPoker {
				step.Say = append(step.Say, h.dealerSays())
			}
		}
	}
	return step
}

// reveal lists the closed cards turned up at the showdown: the dealer's and every live seat's.
func (h *House) reveal() []int {
	var out []int
	for i, idx := range h.dealerIdx {
		if !(h.game == CaribbeanStud && i == 4) {
			out = append(out, idx)
		}
	}
	for _, s := range h.seats {
		if !s.void && !s.folded {
			out = append(out, s.idx...)
		}
	}
	slices.Sort(out)
	return out
}

func (h *House) dealerSays() games.Msg {
	q, r := h.qualifies()
	if q {
		return games.M("poker.dealer-qualifies", games.T("hand", RankMsg(r)))
	}
	return games.M("poker.dealer-not-qualify", games.T("hand", RankMsg(r)))
}

// RankMsg says a hand as a term: its category in the catalog's words, then its ranks as they
// are ("pair K K A 9 4", "straight 7 high"): String's form, for the dealer's guidance.
func RankMsg(desc string) games.Msg {
	for _, c := range slices.Backward(hand.Categories) {
		rest, ok := strings.CutPrefix(desc, c.String())
		if !ok {
			continue
		}
		cat := games.M("poker.cat." + strings.ReplaceAll(c.String(), " ", "-"))
		rest = strings.TrimSpace(rest)
		switch {
		case rest == "":
			return cat
		case strings.HasSuffix(rest, " high") && !strings.Contains(strings.TrimSuffix(rest, " high"), " "):
			return games.M("poker.hand-high", games.T("cat", cat), games.S("rank", strings.TrimSuffix(rest, " high")))
		}
		return games.M("poker.hand", games.T("cat", cat), games.S("ranks", rest))
	}
	return games.M("poker.cat.no-hand")
}

var _ games.Layout = (*House)(nil)

// Spots returns the spots bet before the deal (bet and play are decisions).
func (h *House) Spots() []string { return slices.Clone(h.spots()) }

// Limits returns the limits in force.
func (h *House) Limits() []games.Limit { return slices.Clone(h.cfg.Limits) }

// SetLimits replaces the limits from the next round on; bet and play (placed by the decisions)
// may have limits too.
func (h *House) SetLimits(ls []games.Limit) error {
	cfg, err := h.cfg.WithLimits(ls, append(h.spots(), SpotBet, SpotPlay))
	if err != nil {
		return err
	}
	h.cfg = cfg
	return nil
}

// qualifies says whether the dealer's hand qualifies (RULES.md §5) and describes it.
func (h *House) qualifies() (bool, string) {
	if h.game == ThreeCardPoker {
		r := h.rank3(h.dealer)
		k := r.Kickers()
		return r.Category() > hand.HighCard || len(k) > 0 && value(k[0]) >= 12, r.String() // queen high
	}
	r := h.rank5(h.dealer)
	k := r.Kickers()
	switch h.game {
	case CaribbeanStud: // a pair, or ace-king high
		return r.Category() >= hand.Pair || len(k) > 1 && k[0] == card.Ace && k[1] == card.King, r.String()
	case DrawPoker: // a pair of eights or better
		return r.Category() > hand.Pair || r.Category() == hand.Pair && value(k[0]) >= 8, r.String()
	}
	return false, r.String()
}

func value(r card.Rank) int {
	if r == card.Ace {
		return 14
	}
	return int(r)
}

func (h *House) rank5(cs []card.Card) hand.Rank {
	r, err := hand.Eval(cs...)
	if err != nil {
		return 0
	}
	return r
}

func (h *House) rank3(cs []card.Card) hand.ThreeRank {
	r, err := hand.Eval3(cs...)
	if err != nil {
		return 0
	}
	return r
}

// HouseDetail is Outcome.Detail for the house games.
type HouseDetail struct {
	// Board is Go poker's two community cards.
	Board []card.Card `json:"board,omitempty"`
	// Exchanged is draw poker's discards by seat.
	Exchanged map[int][]card.Card `json:"exchanged,omitempty"`
	// AnteBonus is three card poker's ante bonus by seat, included in the ante's net.
	AnteBonus map[int]int64 `json:"ante_bonus,omitempty"`
	// Progressive lists the progressive prizes won (amounts before the bet is taken).
	Progressive []progressive.Payout `json:"progressive,omitempty"`
	// Void lists the void hands: seat numbers, 0 for the dealer.
	Void []int `json:"void,omitempty"`
}

// Outcome settles the round.
func (h *House) Outcome() (*games.Outcome, error) {
	if h.phase != phaseDone {
		return nil, notReady(h.game, h.Need())
	}
	o := &games.Outcome{Game: h.game, Hands: []games.Hand{}, Settlements: []games.Settlement{}}
	d := &HouseDetail{}
	if len(h.seats) == 0 {
		o.Result = "no bets"
		return o, nil
	}
	qual, _ := h.qualifies()
	switch {
	case h.voidRound:
		o.Result = "void"
		d.Void = append(d.Void, 0)
	case h.game == GoPoker:
		o.Result = "paid by the table"
		d.Board = h.board
	case qual:
		o.Result = "dealer qualifies"
	default:
		o.Result = "dealer does not qualify"
	}
	if h.game != GoPoker {
		dh := &games.Hand{Name: "dealer", Cards: h.dealer, Outcome: "void"}
		if !h.voidRound {
			dh.Outcome = "does not qualify"
			if qual {
				dh.Outcome = "qualifies"
			}
			dh.Category = h.category(h.dealer)
		}
		o.Dealer = dh
	}
	var progBets []progressive.Bet
	for _, s := range h.seats {
		hd := games.Hand{Seat: s.seat, Cards: s.cards}
		void := h.voidRound || s.void
		if void && !h.voidRound {
			d.Void = append(d.Void, s.seat)
		}
		if len(s.discards) > 0 {
			if d.Exchanged == nil {
				d.Exchanged = map[int][]card.Card{}
			}
			d.Exchanged[s.seat] = s.discards
		}
		if !void {
			hd.Category = h.category(h.playerCards(s))
		}
		add := func(spot string, amount, net int64) {
			if amount > 0 {
				o.Settlements = append(o.Settlements, games.Settlement{Seat: s.seat, Spot: spot, Amount: amount, Net: net})
			}
		}
		switch {
		case void:
			hd.Outcome = "void"
			add(SpotAnte, s.ante, 0)
			add(SpotPairPlus, s.pairPlus, 0)
		case h.game == ThreeCardPoker:
			hd.Outcome = h.settleThree(s, qual, d, add)
		case h.game == GoPoker:
			pay, ok := h.goPay(h.rank5(h.playerCards(s)))
			hd.Outcome = "lose"
			net := -s.ante
			if ok {
				hd.Outcome, net = "win", s.ante*pay
			}
			add(SpotAnte, s.ante, net)
		default:
			hd.Outcome = h.settleStud(s, qual, add)
		}
		if s.prog > 0 {
			progBets = append(progBets, progressive.Bet{Seat: s.seat, Amount: s.prog, Cards: h.playerCards(s), Folded: s.folded, Void: void})
		}
		o.Hands = append(o.Hands, hd)
	}
	h.claims = nil
	if len(progBets) > 0 && h.progController {
		for _, b := range progBets {
			c := games.Claim{Seat: b.Seat, Amount: b.Amount, Cards: b.Cards, Folded: b.Folded, Void: b.Void}
			if !b.Void {
				c.Category = h.category(b.Cards)
			}
			h.claims = append(h.claims, c)
		}
	} else if len(progBets) > 0 {
		pays := h.progPrizes.Pay(h.progPool, progBets)
		for _, p := range pays {
			if p.Prize.Percent > 0 && !h.progPoolSet {
				return nil, h.refuse(p.Seat, "progressive "+p.Category.String(),
					fmt.Sprintf("the hand wins %s of the progressive pool: give the pool's value in option %s", p.Prize, OptProgressivePool))
			}
		}
		d.Progressive = pays
		for _, b := range progBets {
			net := -b.Amount
			if b.Void {
				net = 0
			}
			for _, p := range pays {
				if p.Seat == b.Seat {
					net += p.Amount
				}
			}
			o.Settlements = append(o.Settlements, games.Settlement{Seat: b.Seat, Spot: SpotProgressive, Amount: b.Amount, Net: net})
		}
		slices.SortStableFunc(o.Settlements, func(a, b games.Settlement) int { return a.Seat - b.Seat })
	}
	if len(d.Void) > 0 || d.Board != nil || d.Exchanged != nil || d.AnteBonus != nil || d.Progressive != nil {
		o.Detail = d
	}
	return o, nil
}

// playerCards is the five (three in three card poker) cards a seat's hand is ranked on: Go
// poker's three hole cards with the two community cards.
func (h *House) playerCards(s *houseSeat) []card.Card {
	if h.game == GoPoker {
		return append(slices.Clone(s.cards), h.board...)
	}
	return s.cards
}

func (h *House) category(cs []card.Card) string {
	if h.game == ThreeCardPoker {
		return h.rank3(cs).Category().String()
	}
	return h.rank5(cs).Category().String()
}

// goPay returns Go poker's pay for a hand and whether it pays (RULES.md §5: a pair of tens or
// better).
func (h *House) goPay(r hand.Rank) (int64, bool) {
	c := r.Category()
	if c == hand.Pair && value(r.Kickers()[0]) < h.minPair {
		return 0, false
	}
	p, ok := h.goPays[c]
	return p, ok && p > 0
}

// settleStud settles Caribbean stud and draw poker (RULES.md §5): a fold loses the ante; when the
// dealer does not qualify the ante wins 1:1 and the bet pushes; otherwise the better hand takes
// the ante 1:1 and the bet by the pay table, an exact tie pushes.
func (h *House) settleStud(s *houseSeat, qual bool, add func(string, int64, int64)) string {
	bet := 2 * s.ante
	switch {
	case s.folded:
		add(SpotAnte, s.ante, -s.ante)
		return "fold"
	case !qual:
		add(SpotAnte, s.ante, s.ante)
		add(SpotBet, bet, 0)
		return "win"
	}
	p, dl := h.rank5(s.cards), h.rank5(h.dealer)
	switch {
	case p > dl:
		pays, ok := h.betPays[p.Category()]
		if !ok {
			pays = 1
		}
		add(SpotAnte, s.ante, s.ante)
		add(SpotBet, bet, bet*pays)
		return "win"
	case p < dl:
		add(SpotAnte, s.ante, -s.ante)
		add(SpotBet, bet, -bet)
		return "lose"
	}
	add(SpotAnte, s.ante, 0)
	add(SpotBet, bet, 0)
	return "push"
}

// settleThree settles three card poker (RULES.md §5).
func (h *House) settleThree(s *houseSeat, qual bool, d *HouseDetail, add func(string, int64, int64)) string {
	p := h.rank3(s.cards)
	out := ""
	switch {
	case s.ante == 0:
		out = "pair plus only"
	case s.folded:
		add(SpotAnte, s.ante, -s.ante)
		out = "fold"
	default:
		bonus := s.ante * h.anteBonus[p.Category()] // paid whatever the dealer holds
		if bonus > 0 {
			if d.AnteBonus == nil {
				d.AnteBonus = map[int]int64{}
			}
			d.AnteBonus[s.seat] = bonus
		}
		dl := h.rank3(h.dealer)
		switch {
		case !qual:
			add(SpotAnte, s.ante, s.ante+bonus)
			add(SpotPlay, s.ante, 0)
			out = "win"
		case p > dl:
			add(SpotAnte, s.ante, s.ante+bonus)
			add(SpotPlay, s.ante, s.ante)
			out = "win"
		case p < dl:
			add(SpotAnte, s.ante, -s.ante+bonus)
			add(SpotPlay, s.ante, -s.ante)
			out = "lose"
		default:
			add(SpotAnte, s.ante, bonus)
			add(SpotPlay, s.ante, 0)
			out = "push"
		}
	}
	if s.pairPlus > 0 { // stands even if the player folds
		pays := h.pairPlus[p.Category()]
		net := -s.pairPlus
		if pays > 0 {
			net = s.pairPlus * pays
		}
		add(SpotPairPlus, s.pairPlus, net)
	}
	return out
}
