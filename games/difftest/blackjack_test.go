package difftest

import (
	"math/rand/v2"
	"strconv"

	"github.com/sabot-tables/sabot/games"
)

// bjRules is one column of the RULES.md §4 table, written out again here.
type bjRules struct {
	hole, peek, hitSoft17 bool
	splitRank             bool // split equal ranks only (else equal values)
	maxHands              int
	double9to11           bool // double only first two cards totalling 9, 10 or 11 (a soft hand totals 12 or more)
	das                   bool // double after split
	surrender             string
	insurance, evenMoney  bool
	takesAll              bool // a dealer blackjack takes every bet on the box
	paidAtOnce            bool // a blackjack is paid at once when the up card is not an ace or ten
	prizes                bool // real21's promotional prizes
}

var bjPresets = map[string]bjRules{
	// RULES.md §4 classic, seed 001.
	"classic": {hole: true, peek: true, maxHands: 2, das: true, surrender: "any",
		insurance: true, evenMoney: true},
	// RULES.md §4 real21, seed 002.
	"real21": {hitSoft17: true, splitRank: true, maxHands: 4, surrender: "not-ace",
		evenMoney: true, takesAll: true, paidAtOnce: true, prizes: true},
	// RULES.md §4 retiro, seed 004.
	"retiro": {hole: true, maxHands: 4, double9to11: true, das: true, surrender: "ace-ten",
		insurance: true, takesAll: true},
	// RULES.md §4 enhc, seed 000.
	"enhc": {maxHands: 4, das: true, surrender: "not-ace", insurance: true, evenMoney: true,
		takesAll: true, paidAtOnce: true},
}

// bjValue is a card's blackjack value, the ace as 1: A = 1 or 11, 2–10 pip, court 10 (RULES.md §4).
func bjValue(c crd) int { return min(c.rank, 10) }

// bjTotal is a hand's best total and whether an ace counts 11 in it (RULES.md §4; seed 002 "si
// se excediera de 21 puntos podrá nuevamente contarse como 1").
func bjTotal(cs []crd) (int, bool) {
	t, ace := 0, false
	for _, c := range cs {
		t += bjValue(c)
		ace = ace || c.rank == 1
	}
	if ace && t <= 11 {
		return t + 10, true
	}
	return t, false
}

func aceTen(a, b crd) bool {
	return a.rank == 1 && bjValue(b) == 10 || b.rank == 1 && bjValue(a) == 10
}

type bjHand struct {
	cards                     []crd
	split, oneCard            bool // from a split; a split ace that takes one card
	acted, doubled, surrender bool
	natural, atOnce, done     bool
	prize                     int64 // real21 prize paid (X to 1), 0 for none
}

type bjBox struct {
	seat  int
	bet   int64  // main, or each roundK of challenge21
	nbets int    // 1, or 2–3 rounds in challenge21
	pp    int64  // perfect-pairs stake
	first [2]crd // the box's first two cards
	hands []*bjHand
	ins   []int64 // insurance per round
	even  []bool  // even money per round
	ds    []string
}

func (b *bjBox) decide(d string) { b.ds = append(b.ds, d) }

// bjRound plays one random round of blackjack (preset rules) or, with c21, of Challenge 21.
func bjRound(r *rand.Rand, preset string, c21 bool) round {
	rl := bjPresets[preset]
	if c21 {
		rl = bjPresets["enhc"] // RULES.md §4 Challenge 21: one hand under enhc rules
	}
	spots := []string{"main", "perfect-pairs"}
	if c21 {
		spots = []string{"round1", "round2", "round3"}
	}
	lims, stake := limits(r, spots...)
	in := games.RoundInput{Game: "blackjack", Rules: preset, Limits: lims, Decisions: map[string][]string{}}
	most := 1
	c21lo, c21hi := int64(1), int64(100_000)
	if c21 {
		in.Game, in.Rules = "challenge21", ""
		// Every round's bet is the same amount (RULES.md §4): it must fit each round's limit.
		for _, s := range spots {
			if l, ok := limitOf(lims, s); ok {
				c21lo, c21hi = max(c21lo, l[0]), min(c21hi, l[1])
			}
		}
		if c21lo > c21hi {
			in.Limits, c21lo, c21hi = nil, 1, 100_000
		}
	}
	var boxes []*bjBox
	for _, s := range seats(r, 1+r.IntN(7), 7) {
		n := 1
		if c21 {
			n = 2 + r.IntN(2) // round1 and round2, optionally round3
		}
		most = max(most, n)
		b := &bjBox{seat: s, nbets: n, hands: []*bjHand{{}}, ins: make([]int64, n), even: make([]bool, n)}
		if c21 {
			b.bet = amount(r, c21lo, c21hi)
			for k := range n {
				in.Bets = append(in.Bets, games.Bet{Seat: s, Spot: spots[k], Amount: b.bet})
			}
		} else {
			b.bet = stake("main")
			in.Bets = append(in.Bets, games.Bet{Seat: s, Spot: "main", Amount: b.bet})
			if r.IntN(3) > 0 {
				b.pp = stake("perfect-pairs")
				in.Bets = append(in.Bets, games.Bet{Seat: s, Spot: "perfect-pairs", Amount: b.pp})
			}
		}
		boxes = append(boxes, b)
	}
	r.Shuffle(len(in.Bets), func(i, j int) { in.Bets[i], in.Bets[j] = in.Bets[j], in.Bets[i] })

	// RULES.md §1: the blackjack family plays 6 decks (6–8).
	decks := pick(r, 6, 6, 8)
	if decks != 6 {
		in.Decks = decks
	}
	sh := &shoe{cards: shuffled(r, decks)}
	// A third of the shoes are left as shuffled; the others are stacked so that pairs, aces and
	// tens come often and the rare paths (splits, naturals, the prizes) are played many times.
	if r.IntN(3) > 0 {
		bjStack(r, sh.cards, len(boxes), rl.hole && !c21)
	}
	var x expect
	var dealer []crd
	// RULES.md §4 deal order: a card to each box in seat order, the dealer's up card, a second
	// card to each box, then the hole card where the preset deals one.
	for _, b := range boxes {
		b.hands[0].cards = append(b.hands[0].cards, sh.next())
	}
	dealer = append(dealer, sh.next())
	for _, b := range boxes {
		b.hands[0].cards = append(b.hands[0].cards, sh.next())
	}
	if rl.hole && !c21 {
		dealer = append(dealer, sh.next())
	}
	up := dealer[0]
	upAceTen := up.rank == 1 || bjValue(up) == 10
	for _, b := range boxes {
		h := b.hands[0]
		b.first = [2]crd{h.cards[0], h.cards[1]}
		if !aceTen(h.cards[0], h.cards[1]) {
			continue
		}
		h.natural, h.done = true, true
		switch {
		case rl.prizes && jackOfSpades(h.cards):
			h.prize = 4 // RULES.md §4 real21: ace and jack of spades 4:1, paid at once
		case rl.paidAtOnce && !upAceTen:
			h.atOnce = true
		}
	}
	// Insurance and even money: against an ace, box by box before any box acts, once per round
	// bet in Challenge 21 (RULES.md §4, §8). A prize hand is finished: nothing is offered to it.
	if up.rank == 1 {
		for _, b := range boxes {
			h := b.hands[0]
			for k := range b.nbets {
				switch {
				case h.prize > 0:
				case h.natural && rl.evenMoney:
					if r.IntN(2) == 0 {
						b.decide("E")
						b.even[k] = true
					} else {
						b.decide("N")
					}
				case rl.insurance && b.bet/2 > 0:
					// RULES.md §4: insurance is half the bet, rounded down ("Rounding").
					if r.IntN(2) == 0 {
						b.decide("I")
						b.ins[k] = b.bet / 2
					} else {
						b.decide("N")
					}
				}
			}
			if h.natural && allTrue(b.even) {
				h.atOnce = true // even money on every round: paid, the hand is collected
			}
		}
	}
	dealerBJ := func(d []crd) bool { return len(d) == 2 && aceTen(d[0], d[1]) }
	peeked := rl.peek && rl.hole && upAceTen && dealerBJ(dealer)
	if peeked {
		x.path("the peek finds a blackjack")
	}
	if !peeked {
		for _, b := range boxes {
			for hi := 0; hi < len(b.hands); hi++ {
				bjPlay(r, rl, b, hi, up, sh)
			}
		}
	}
	// The dealer: each round k from the first card (RULES.md §4 Challenge 21); in blackjack one
	// round from the up card and the hole card. The dealer draws to 17 only while a live hand
	// waits for the total; for blackjacks and insurance alone only the second card.
	dhands := [][]crd{dealer}
	if c21 {
		dhands = nil
	}
	for k := range most {
		d := dealer
		if c21 {
			d = []crd{up}
		}
		full, check := false, false
		for _, b := range boxes {
			if k >= b.nbets {
				continue
			}
			check = check || b.ins[k] > 0
			for _, h := range b.hands {
				t, _ := bjTotal(h.cards)
				switch {
				case h.surrender, h.prize > 0, t > 21, h.atOnce:
				case h.natural:
					check = check || !b.even[k]
				default:
					full = true
				}
			}
		}
		for !dealerBJ(d) {
			t, soft := bjTotal(d)
			hit := false
			switch {
			case full:
				hit = t < 17 || t == 17 && soft && rl.hitSoft17
			case check:
				hit = len(d) < 2
			}
			if !hit {
				break
			}
			d = append(d, sh.next())
		}
		if c21 {
			dhands = append(dhands, d)
		} else {
			dhands[0] = d
		}
	}

	spot := func(k int) string {
		if c21 {
			return spots[k]
		}
		return "main"
	}
	for _, b := range boxes {
		if b.pp > 0 {
			pays := perfectPairs(b.first[0], b.first[1])
			x.add(key{b.seat, "perfect-pairs", 0}, b.pp, b.pp*pays)
			x.path(map[int64]string{-1: "perfect pairs lost", 6: "mixed pair", 12: "coloured pair", 25: "perfect pair"}[pays])
			if pays > 0 && len(b.hands) > 1 {
				x.path("a pair won, then split")
			}
		}
		if len(b.hands) > 1 {
			x.path("split")
		}
		if len(b.hands) > 2 {
			x.path("resplit")
		}
		for k := range b.nbets {
			d := dhands[k]
			dbj := dealerBJ(d)
			dt, _ := bjTotal(d)
			if b.ins[k] > 0 {
				s := "insurance"
				if c21 {
					s = spots[k] + "-insurance"
				}
				net := -b.ins[k]
				if dbj {
					net = 2 * b.ins[k] // RULES.md §4: insurance pays 2:1
				}
				x.path(map[bool]string{true: "insurance won", false: "insurance lost"}[dbj])
				x.add(key{b.seat, s, 0}, b.ins[k], net)
			}
			for hi, h := range b.hands {
				st := b.bet
				if h.doubled {
					st *= 2
				}
				t, _ := bjTotal(h.cards)
				var net int64
				switch {
				case h.surrender:
					net = -(st - st/2) // half the bet back, rounded toward the house (RULES.md §4 "Rounding")
				case t > 21:
					net = -st // in Challenge 21 a bust loses every round at once
				case h.prize > 0:
					net = st * h.prize // real21: on the hand's full bet, whatever the dealer holds
				case h.natural && b.even[k]:
					net = b.bet // even money: 1:1 at once
				case h.natural && dbj:
					net = 0 // RULES.md §4: blackjack against blackjack pushes (seed 004 "empate")
				case h.natural:
					net = st * 3 / 2 // 3:2, the odd half cent to the house (RULES.md §4 "Rounding")
				case dbj && rl.takesAll:
					net = -st
				case dbj:
					// The original bet only (classic): the peek ends the round before any
					// double or split, so the box's one hand loses its original stake.
					net = -b.bet
				case dt > 21 || t > dt:
					net = st
				case t == dt:
					net = 0
				default:
					net = -st
				}
				x.add(key{b.seat, spot(k), hi}, st, net)
				switch {
				case h.oneCard:
					x.path("split aces")
				case h.doubled:
					x.path("double")
				case h.surrender:
					x.path("surrender")
				}
				switch {
				case h.prize > 0:
					x.path(map[int64]string{1: "seven cards", 4: "ace and jack of spades", 5: "suited 6-7-8", 7: "suited 7-7-7"}[h.prize])
				case h.natural && b.even[k]:
					x.path("even money")
				case h.natural && dbj:
					x.path("blackjack against blackjack")
				case h.natural && h.atOnce:
					x.path("blackjack paid at once")
				case h.natural:
					x.path("blackjack")
				case dbj && t <= 21 && !h.surrender:
					x.path("dealer blackjack")
				case dt > 21 && t <= 21 && !h.surrender:
					x.path("dealer busts")
				}
			}
		}
		if len(b.ds) > 0 {
			in.Decisions[strconv.Itoa(b.seat)] = b.ds
		}
	}
	in.Cards = sh.used()
	x.used = sh.n
	return round{in: in, want: x}
}

// bjPlay plays hand hi of box b to its end with random legal decisions (RULES.md §4).
func bjPlay(r *rand.Rand, rl bjRules, b *bjBox, hi int, up crd, sh *shoe) {
	h := b.hands[hi]
	for !h.done {
		if len(h.cards) < 2 {
			// A split hand takes its second card when its turn comes (RULES.md §4).
			bjCard(rl, h, sh.next())
			continue
		}
		t, _ := bjTotal(h.cards)
		var opts []string
		if !h.oneCard && t < 21 {
			opts = append(opts, "H")
		}
		opts = append(opts, "S")
		first := len(h.cards) == 2 && !h.acted
		if first && !h.oneCard && (!h.split || rl.das) && (!rl.double9to11 || t >= 9 && t <= 11) {
			opts = append(opts, "D")
		}
		a, c := h.cards[0], h.cards[1]
		pair := bjValue(a) == bjValue(c)
		if rl.splitRank {
			pair = a.rank == c.rank
		}
		if first && pair && !h.oneCard && len(b.hands) < rl.maxHands {
			opts = append(opts, "P", "P") // split often: the split paths are the rare ones
		}
		if first && !h.split && surrenderAllowed(rl.surrender, up) {
			opts = append(opts, "R")
		}
		d := pick(r, opts...)
		if !h.oneCard && (t <= 11 || len(h.cards) >= 4 && t <= 17) && r.IntN(10) < 6 {
			d = "H" // hit small totals most of the time: busts, and real21's seven-card hands
		}
		b.decide(d)
		switch d {
		case "H":
			h.acted = true
			bjCard(rl, h, sh.next())
		case "S":
			h.acted, h.done = true, true
		case "D":
			h.acted, h.doubled = true, true
			bjCard(rl, h, sh.next())
			h.done = true
		case "R":
			h.acted, h.surrender, h.done = true, true, true
		case "P":
			nh := &bjHand{cards: []crd{h.cards[1]}, split: true}
			h.cards = h.cards[:1:1]
			h.split = true
			if h.cards[0].rank == 1 {
				h.oneCard, nh.oneCard = true, true // RULES.md §4: split aces take one card each
			}
			b.hands = append(b.hands[:hi+1], append([]*bjHand{nh}, b.hands[hi+1:]...)...)
		}
	}
}

// bjCard gives a card to a hand in play and finishes the hand where the rules say.
func bjCard(rl bjRules, h *bjHand, c crd) {
	h.cards = append(h.cards, c)
	t, _ := bjTotal(h.cards)
	switch {
	case t > 21:
		h.done = true
	case rl.prizes && prize(h.cards) > 0:
		h.prize, h.done = prize(h.cards), true
	case h.oneCard && len(h.cards) == 2:
		h.done = true // no resplit of aces in any preset
	case t == 21:
		h.done = true // RULES.md §4: no hit on 21 (a split hand's two-card 21 is not blackjack)
	}
}

// prize is the real21 prize of a hand in play (RULES.md §4, seed 002), X to 1: seven cards
// without passing 21 1:1; 6-7-8 of one suit 5:1; three sevens of one suit 7:1. (The ace and
// jack of spades is a blackjack's, settled at the deal.)
func prize(cs []crd) int64 {
	switch len(cs) {
	case 7:
		if t, _ := bjTotal(cs); t <= 21 {
			return 1
		}
	case 3:
		if cs[0].suit != cs[1].suit || cs[1].suit != cs[2].suit {
			return 0
		}
		var have [14]bool
		for _, c := range cs {
			have[c.rank] = true
		}
		if have[6] && have[7] && have[8] {
			return 5
		}
		if cs[0].rank == 7 && cs[1].rank == 7 && cs[2].rank == 7 {
			return 7
		}
	}
	return 0
}

func jackOfSpades(cs []crd) bool {
	js := func(c crd) bool { return c.rank == 11 && c.suit == 's' }
	return cs[0].rank == 1 && js(cs[1]) || cs[1].rank == 1 && js(cs[0])
}

// perfectPairs is the side bet's pay on the box's first two cards, X to 1, or -1 when it loses
// (RULES.md §4, seed 000 "Perfect Pairs … Par de Color … Par Mezclado"): same rank and suit
// 25:1, same rank and colour 12:1, same rank 6:1.
func perfectPairs(a, b crd) int64 {
	switch {
	case a.rank != b.rank:
		return -1
	case a.suit == b.suit:
		return 25
	case a.red() == b.red():
		return 12
	}
	return 6
}

// surrenderAllowed: RULES.md §4 row "surrender" (the kind is the preset's).
func surrenderAllowed(kind string, up crd) bool {
	switch kind {
	case "any":
		return true
	case "not-ace":
		return up.rank != 1
	case "ace-ten":
		return up.rank == 1 || bjValue(up) == 10 // seed 004 "un As o una carta de valor 10"
	}
	return false
}

func allTrue(bs []bool) bool {
	for _, b := range bs {
		if !b {
			return false
		}
	}
	return true
}

func limitOf(ls []games.Limit, spot string) ([2]int64, bool) {
	for _, l := range ls {
		if l.Spot == spot {
			return [2]int64{l.Min, l.Max}, true
		}
	}
	return [2]int64{}, false
}

// bjStack plants, in a shuffled shoe, the cards that make the rare paths common: pairs of
// every kind (perfect pairs' three pays, splits, split aces), blackjacks (the ace and jack of
// spades among them), an ace or ten up and the hole card behind it, and for the first box the
// suited 6-7-8 and 7-7-7 of real21 with the hit that makes them.
func bjStack(r *rand.Rand, cs []string, nb int, hole bool) {
	rk := func() string { return string(rankChars[r.IntN(13)]) }
	ten := func() string { return string("TJQK"[r.IntN(4)]) }
	suit := func() byte { return "shdc"[r.IntN(4)] }
	other := func(s byte, red bool) byte { // another suit of that colour, or of the other one
		pair := map[byte][2]byte{'s': {'c', 'h'}, 'c': {'s', 'd'}, 'h': {'d', 's'}, 'd': {'h', 'c'}}[s]
		if red {
			return pair[0]
		}
		return pair[1]
	}
	firstHit := 2*nb + 1
	if hole {
		firstHit++
	}
	for i := range nb {
		if i == 0 && r.IntN(10) == 0 {
			// Small cards for real21's seven cards without passing 21.
			var small []string
			for range 7 {
				small = append(small, string("A23"[r.IntN(3)])+string(suit()))
			}
			plant(r, cs, []int{0, nb + 1, firstHit, firstHit + 1, firstHit + 2, firstHit + 3, firstHit + 4}, small)
			continue
		}
		if r.IntN(5) >= 2 {
			continue
		}
		a, b := "", ""
		s := suit()
		switch r.IntN(7) {
		case 0, 1, 2: // a pair: perfect, coloured or mixed
			k := rk()
			if r.IntN(4) == 0 {
				k = "A"
			}
			a, b = k+string(s), k+string(pick(r, s, other(s, true), other(s, false)))
		case 3, 4: // a blackjack, now and then the ace and jack of spades
			a, b = "A"+string(s), ten()+string(suit())
			if r.IntN(3) == 0 {
				b = "Js"
			}
		default: // real21's three-card prizes: 6-7 or 7-7 of one suit, then the 8 or 7
			third := "8"
			a, b = "6"+string(s), "7"+string(s)
			if r.IntN(2) == 0 {
				a, third = "7"+string(s), "7"
			}
			if i == 0 {
				plant(r, cs, []int{firstHit}, []string{third + string(s)})
			}
		}
		if r.IntN(2) == 0 {
			a, b = b, a
		}
		plant(r, cs, []int{i, nb + 1 + i}, []string{a, b})
	}
	switch r.IntN(4) {
	case 0:
		plant(r, cs, []int{nb}, []string{"A" + string(suit())})
	case 1:
		plant(r, cs, []int{nb}, []string{ten() + string(suit())})
	}
	if hole && r.IntN(3) == 0 {
		plant(r, cs, []int{2*nb + 1}, []string{pick(r, "A", ten()) + string(suit())})
	}
}
