package difftest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/sabot-tables/sabot/games"
)

// The pay tables of RULES.md §5, X to 1, by the reference's categories.
var (
	// Caribbean stud's and draw poker's bet (RULES.md §5; no seed gives its values). A hand below
	// a pair can beat a dealer who qualifies with ace-king: it is paid 1:1.
	betPays = map[int]int64{highCard: 1, onePair: 1, twoPair: 2, trips: 3, straight: 4, flush: 5,
		fullHouse: 7, quads: 20, straightFlush: 50, royalFlush: 100}
	// Three card poker: the ante bonus and pair plus.
	anteBonus = map[int]int64{t3Straight: 1, t3Trips: 4, t3StraightFlush: 5}
	pairPlus  = map[int]int64{t3Pair: 1, t3Flush: 4, t3Straight: 6, t3Trips: 30, t3StraightFlush: 40}
	// Go poker, on a pair of tens or better.
	goPays = map[int]int64{onePair: 1, twoPair: 2, trips: 3, straight: 5, flush: 8, fullHouse: 11,
		quads: 50, straightFlush: 200, royalFlush: 1000}
)

// progPrize is a progressive prize (RULES.md §7): a percentage of the pool in basis points, or a
// multiple of the bet. By default a royal flush wins 100% of the pool, a straight flush 10%, four
// of a kind 100 times the bet, a full house 75 times, a flush 50 times (no seed gives the table).
type progPrize struct{ bp, times int64 }

var progPrizes = map[int]progPrize{royalFlush: {bp: 10000}, straightFlush: {bp: 1000},
	quads: {times: 100}, fullHouse: {times: 75}, flush: {times: 50}}

type houseSeat struct {
	seat                 int
	ante, pp, prog       int64
	cards                []crd
	folded, void, played bool
	discard              []crd
	ds                   []string
}

// houseRound plays one random round of a poker game against the house (RULES.md §5).
func houseRound(r *rand.Rand, id string) round {
	in := games.RoundInput{Game: id, Decisions: map[string][]string{}, Options: map[string]string{}}
	three := id == "three-card-poker"
	goPoker := id == "go-poker"
	side := "progressive"
	if three {
		side = "pair-plus"
	}
	var stake func(string) int64
	in.Limits, stake = limits(r, "ante", side)
	var ss []*houseSeat
	for _, s := range seats(r, 1+r.IntN(7), 7) { // seven boxes (the engine's default)
		hs := &houseSeat{seat: s}
		switch {
		case three && r.IntN(5) == 0:
			hs.pp = stake(side) // pair plus alone
		default:
			hs.ante = stake("ante")
			if r.IntN(2) == 0 {
				if three {
					hs.pp = stake(side)
				} else {
					hs.prog = stake(side)
				}
			}
		}
		for _, b := range []games.Bet{{Seat: s, Spot: "ante", Amount: hs.ante}, {Seat: s, Spot: "pair-plus", Amount: hs.pp},
			{Seat: s, Spot: "progressive", Amount: hs.prog}} {
			if b.Amount > 0 {
				in.Bets = append(in.Bets, b)
			}
		}
		ss = append(ss, hs)
	}
	r.Shuffle(len(in.Bets), func(i, j int) { in.Bets[i], in.Bets[j] = in.Bets[j], in.Bets[i] })
	pool := int64(0)
	if !three {
		pool = 100_000 + r.Int64N(1e9)
		in.Options["progressive-pool"] = strconv.FormatInt(pool, 10)
	}
	// Seed 002: a hand dealt a wrong number of cards is void; the dealer's voids the round.
	voidRound := false
	if r.IntN(20) == 0 {
		if !goPoker && r.IntN(3) == 0 {
			voidRound = true
			in.Options["void"] = "dealer"
		} else {
			v := pick(r, ss...)
			v.void = true
			in.Options["void"] = strconv.Itoa(v.seat)
		}
	}
	if len(in.Options) == 0 {
		in.Options = nil
	}

	each := 5
	if three || goPoker {
		each = 3
	}
	sh := &shoe{cards: shuffled(r, 1)}
	if r.IntN(2) == 0 {
		// The deal's layout: hand i (the seats, then the dealer) takes every nh-th card.
		nh := len(ss) + 1
		if goPoker {
			nh = len(ss)
		}
		layout := make([][]int, nh)
		for k := range each {
			for i := range nh {
				layout[i] = append(layout[i], k*nh+i)
			}
		}
		if goPoker { // a hand's three hole cards and the two community cards
			for i := range layout {
				layout[i] = append(layout[i], each*nh, each*nh+1)
			}
			layout = layout[:1+r.IntN(len(layout))]
		}
		pokerHands(r, sh.cards, layout)
	}
	var dealer, board []crd
	// RULES.md §5: one card at a time round the table, seats in order, the dealer last.
	for range each {
		for _, s := range ss {
			s.cards = append(s.cards, sh.next())
		}
		if !goPoker {
			dealer = append(dealer, sh.next())
		}
	}
	if goPoker {
		board = []crd{sh.next(), sh.next()} // RULES.md §5: two community cards
	}
	if voidRound {
		for _, s := range ss {
			s.void = true
		}
	}
	// Decisions, seat by seat: fold or bet 2 × ante (play = ante in three card poker); in draw
	// poker a bet is followed by the exchange of 0–2 cards (RULES.md §5, §8).
	pending := 0
	for _, s := range ss {
		if s.void || s.ante == 0 || goPoker {
			continue
		}
		if r.IntN(4) == 0 {
			s.folded = true
			s.ds = append(s.ds, "fold")
			continue
		}
		s.played = true
		s.ds = append(s.ds, map[bool]string{true: "play", false: "bet"}[three])
		if id == "draw-poker" {
			// One deck holds 52 cards: seven boxes and the dealer take 40, and the replacements
			// are dealt from the 12 left (RULES.md §5 says nothing of a deck that runs out).
			perm := r.Perm(5)[:min(r.IntN(3), len(sh.cards)-sh.n-pending)]
			pending += len(perm)
			var names []string
			for _, i := range perm {
				s.discard = append(s.discard, s.cards[i])
				names = append(names, s.cards[i].String())
			}
			s.ds = append(s.ds, "exchange:"+strings.Join(names, ","))
		}
	}
	// The replacements, after every seat has decided, seat by seat (RULES.md §8).
	for _, s := range ss {
		if len(s.discard) == 0 {
			continue
		}
		s.cards = slices.DeleteFunc(s.cards, func(c crd) bool { return slices.Contains(s.discard, c) })
		for range s.discard {
			s.cards = append(s.cards, sh.next())
		}
	}

	var x expect
	add := func(s *houseSeat, spot string, amount, net int64) {
		if amount > 0 {
			x.add(key{s.seat, spot, 0}, amount, net)
		}
	}
	var dealerScore int64
	qualifies := false
	switch id {
	case "three-card-poker":
		dealerScore = eval3(dealer)
		qualifies = catOf(dealerScore) > t3High || ranksOf(dealerScore)[0] >= 12 // queen high
	case "caribbean-stud":
		dealerScore = eval5(dealer)
		rs := ranksOf(dealerScore)
		qualifies = catOf(dealerScore) > highCard || rs[0] == 14 && rs[1] == 13 // a pair, or ace-king
	case "draw-poker":
		dealerScore = eval5(dealer)
		qualifies = catOf(dealerScore) > onePair || catOf(dealerScore) == onePair && ranksOf(dealerScore)[0] >= 8
	}
	for _, s := range ss {
		switch {
		case s.void:
			x.path("void")
		case s.folded:
			x.path("fold")
		case len(s.discard) > 0:
			x.path("exchange")
		}
		if s.void {
			add(s, "ante", s.ante, 0) // seed 002: a void hand's bets are returned
			add(s, "pair-plus", s.pp, 0)
			continue
		}
		switch id {
		case "go-poker":
			sc := eval5(append(slices.Clone(s.cards), board...))
			pays, ok := goPays[catOf(sc)]
			if catOf(sc) == onePair && ranksOf(sc)[0] < 10 {
				ok = false // a pair of tens or better
			}
			net := -s.ante
			x.path("lose")
			if ok {
				net = s.ante * pays
				x.path(fmt.Sprintf("pays %d", pays))
			}
			add(s, "ante", s.ante, net)
		case "three-card-poker":
			sc := eval3(s.cards)
			if s.ante > 0 {
				switch {
				case s.folded:
					add(s, "ante", s.ante, -s.ante)
				default:
					bonus := s.ante * anteBonus[catOf(sc)] // whatever the dealer holds
					if bonus > 0 {
						x.path(fmt.Sprintf("ante bonus %d", anteBonus[catOf(sc)]))
					}
					switch {
					case !qualifies:
						add(s, "ante", s.ante, s.ante+bonus)
						add(s, "play", s.ante, 0)
						x.path("dealer does not qualify")
					case sc > dealerScore:
						add(s, "ante", s.ante, s.ante+bonus)
						add(s, "play", s.ante, s.ante)
						x.path("win")
					case sc < dealerScore:
						add(s, "ante", s.ante, -s.ante+bonus)
						add(s, "play", s.ante, -s.ante)
						x.path("lose")
					default:
						add(s, "ante", s.ante, bonus)
						add(s, "play", s.ante, 0)
						x.path("push")
					}
				}
			}
			if s.pp > 0 { // stands even if the player folds
				net := -s.pp
				x.path("pair plus lost")
				if p := pairPlus[catOf(sc)]; p > 0 {
					net = s.pp * p
					x.path(fmt.Sprintf("pair plus %d", p))
				}
				add(s, "pair-plus", s.pp, net)
			}
		default: // caribbean-stud, draw-poker
			bet := 2 * s.ante
			sc := eval5(s.cards)
			switch {
			case s.folded:
				add(s, "ante", s.ante, -s.ante)
			case !qualifies:
				add(s, "ante", s.ante, s.ante)
				add(s, "bet", bet, 0)
				x.path("dealer does not qualify")
			case sc > dealerScore:
				add(s, "ante", s.ante, s.ante)
				add(s, "bet", bet, bet*betPays[catOf(sc)])
				x.path("win")
				x.path(fmt.Sprintf("bet pays %d", betPays[catOf(sc)]))
			case sc < dealerScore:
				add(s, "ante", s.ante, -s.ante)
				add(s, "bet", bet, -bet)
				x.path("lose")
			default:
				add(s, "ante", s.ante, 0)
				add(s, "bet", bet, 0)
				x.path("push")
			}
		}
	}
	// The progressive, on the seat's final five cards (RULES.md §7: "paid by the player's hand
	// alone"); prizes are paid from the croupier's right to left, the highest seat first, each
	// from what the previous prizes left of the pool.
	for i := len(ss) - 1; i >= 0; i-- {
		s := ss[i]
		if s.prog == 0 {
			continue
		}
		net := -s.prog
		switch {
		case s.void:
			net = 0
		case s.folded: // a folded hand wins no prize: its cards go to the discards unseen (seed 000)
		default:
			five := s.cards
			if goPoker {
				five = append(slices.Clone(s.cards), board...)
			}
			if p, ok := progPrizes[catOf(eval5(five))]; ok {
				won := s.prog * p.times
				if p.bp > 0 {
					won = pool / 10000 * p.bp
					won += pool % 10000 * p.bp / 10000
				}
				pool = max(0, pool-won)
				net += won
				x.path("progressive " + catNames[catOf(eval5(five))])
			}
		}
		add(s, "progressive", s.prog, net)
	}
	for _, s := range ss {
		if len(s.ds) > 0 {
			in.Decisions[strconv.Itoa(s.seat)] = s.ds
		}
	}
	in.Cards = sh.used()
	x.used = sh.n
	return round{in: in, want: x}
}

// pokerHands plants a random strong hand at some of the hands' positions of a shuffled deck
// (each hands[i] lists the deck positions of one hand's cards), so that flushes, straights and
// the big prizes and pay-table lines come often enough to be compared many times.
func pokerHands(r *rand.Rand, cs []string, hands [][]int) {
	for _, pos := range hands {
		if r.IntN(3) == 0 {
			plant(r, cs, pos, strongHand(r, len(pos)))
		}
	}
}

// strongHand returns n cards (3 or 5) of a random made hand: a straight flush (royal or not), a
// flush, a straight, four or three of a kind, a full house, two pair or a pair of tens or
// better, some of them cut to n cards.
func strongHand(r *rand.Rand, n int) []string {
	suit := func() string { return string("shdc"[r.IntN(4)]) }
	rk := func(i int) string { return string("A23456789TJQKA"[i%13]) } // 0 = ace … 12 = king
	var out []string
	switch r.IntN(8) {
	case 0, 1: // straight flush, one time in six a royal (ace-high) one; the wheel sometimes
		s, lo := suit(), r.IntN(10)
		if r.IntN(6) == 0 {
			lo = 9
		}
		for i := range 5 {
			out = append(out, rk(lo+i)+s)
		}
	case 2: // flush
		s := suit()
		for _, i := range r.Perm(13)[:5] {
			out = append(out, rk(i)+s)
		}
	case 3: // straight
		lo := r.IntN(10)
		for i := range 5 {
			out = append(out, rk(lo+i)+suit())
		}
	case 4: // four of a kind
		k := r.IntN(13)
		for _, s := range "shdc" {
			out = append(out, rk(k)+string(s))
		}
		out = append(out, rk(k+1+r.IntN(12))+suit())
	case 5: // full house, or three of a kind
		k, p := r.IntN(13), r.IntN(12)
		ss := r.Perm(4)
		for _, i := range ss[:3] {
			out = append(out, rk(k)+string("shdc"[i]))
		}
		for _, i := range r.Perm(4)[:2] {
			out = append(out, rk(k+1+p)+string("shdc"[i]))
		}
	default: // a pair of tens or better, or two pair
		k := 9 + r.IntN(5)
		for _, i := range r.Perm(4)[:2] {
			out = append(out, rk(k)+string("shdc"[i]))
		}
		for range 3 {
			out = append(out, rk(r.IntN(13))+suit())
		}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out[:n]
}
