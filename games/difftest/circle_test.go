package difftest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe/card"
)

// A circle game (RULES.md §6) is settled on what the seats put in the pots, and the betting that
// decides it is long: who may raise how much, and when a street's betting ends. The random
// round therefore asks the engine, as the brief allows, only what comes next and which decisions
// are legal; the reference then replays the round from the cards and the decisions in the order
// they were taken, with its own deal, its own account of every seat's chips, its own pots, rake,
// hand ranking and odd-chip rule, and the two settlements are compared.

type act struct {
	seat int
	d    string
}

// circleRound plays one random round of a circle game.
func circleRound(r *rand.Rand, id string) round {
	in := games.RoundInput{Game: id, Decisions: map[string][]string{}, Options: map[string]string{}}
	most := 10
	if id == "seven-card-stud" {
		most = 7 // seven cards each from one deck
	}
	n := 2 + r.IntN(most-1)
	if r.IntN(4) == 0 {
		n = 2 // heads-up has rules of its own (the button posts the small blind)
	}
	blinds := id == "holdem" || id == "omaha-2-3"
	var bb int64
	if blinds && r.IntN(5) > 0 {
		bb = pick[int64](r, 2, 100, 200, 1000, 5000)
		sb := bb / 2
		if r.IntN(4) == 0 {
			sb = bb // a small blind as large as the big one is allowed
		}
		in.Options["small-blind"] = strconv.FormatInt(sb, 10)
		in.Options["big-blind"] = strconv.FormatInt(bb, 10)
	}
	if r.IntN(3) == 0 {
		in.Options["min-bet"] = strconv.FormatInt(1+r.Int64N(500), 10)
	}
	if r.IntN(3) > 0 {
		in.Options["rake"] = pick(r, "5%", "2.5%", "10%", "3.33%", "0%")
		if r.IntN(2) == 0 {
			in.Options["rake-cap"] = strconv.FormatInt(1+r.Int64N(2000), 10)
		}
	}
	if r.IntN(2) == 0 {
		in.Options["button"] = strconv.Itoa(1 + r.IntN(10))
	}
	for _, s := range seats(r, n, 10) {
		stack := amount(r, 1, 50_000)
		if r.IntN(3) == 0 {
			stack = 1 + r.Int64N(3*max(bb, 100)) // short stacks: all-ins and side pots
		}
		in.Bets = append(in.Bets, games.Bet{Seat: s, Spot: "stack", Amount: stack})
		if r.IntN(4) == 0 {
			in.Bets = append(in.Bets, games.Bet{Seat: s, Spot: "ante", Amount: 1 + r.Int64N(min(stack, 300))})
		}
	}
	if len(in.Options) == 0 {
		in.Options = nil
	}
	r.Shuffle(len(in.Bets), func(i, j int) { in.Bets[i], in.Bets[j] = in.Bets[j], in.Bets[i] })
	cards := shuffled(r, 1)
	switch {
	case n == 2 && strings.HasSuffix(id, "stud") && r.IntN(3) == 0:
		// Heads-up stud, each card dealt in turn to the two seats: they are given the same
		// ranks in other suits, so that the hands tie and the pot is split.
		var pairs []string
		for _, rk := range r.Perm(13)[:7] {
			ss := r.Perm(4)
			for _, su := range ss[:2] {
				pairs = append(pairs, string(rankChars[rk])+string("shdc"[su]))
			}
		}
		rest := slices.DeleteFunc(cards, func(c string) bool { return slices.Contains(pairs, c) })
		cards = append(pairs, rest...)
	case r.IntN(3) == 0:
		// Tied hands and split pots: pairs of cards of one rank, to the board or round the table.
		for i := 0; i+1 < len(cards); i += 2 {
			if r.IntN(2) == 0 {
				plant(r, cards, []int{i, i + 1}, []string{cards[i], string(cards[i][0]) + string(pick[byte](r, 's', 'h', 'd', 'c'))})
			}
		}
	}
	// The engine, asked only what comes next and what is legal.
	e, err := catalog.New(games.Config{Game: id, Options: in.Options})
	if err != nil {
		panic(fmt.Sprintf("difftest: %s: %v", id, err))
	}
	if err := e.Begin(in.Bets); err != nil {
		panic(fmt.Sprintf("difftest: %s: %v", id, err))
	}
	var seq []act
	used := 0
	for step := 0; ; step++ {
		if step > 1000 {
			panic("difftest: a circle round that does not end")
		}
		nd := e.Need()
		var err error
		switch nd.Kind {
		case games.NeedCard:
			_, err = e.Card(card.MustParse(cards[used]))
			used++
		case games.NeedBurn:
			_, err = e.Burn(card.None)
		case games.NeedDecision:
			d := circleChoice(r, nd.Options)
			seq = append(seq, act{nd.Seat, d})
			_, err = e.Decide(nd.Seat, d)
		}
		if err != nil {
			panic(fmt.Sprintf("difftest: %s: the engine refuses what it offered: %v", id, err))
		}
		if nd.Kind == games.NeedDone {
			break
		}
	}
	in.Cards = cards[:used]
	for _, a := range seq {
		k := strconv.Itoa(a.seat)
		in.Decisions[k] = append(in.Decisions[k], a.d)
	}
	return round{in: in, want: circleSettle(id, in, seq)}
}

// circleChoice picks one of the offered decisions, with a whole-street amount for a bet or a
// raise ("raise:400-5000").
func circleChoice(r *rand.Rand, opts []string) string {
	w := make([]int, len(opts))
	total := 0
	for i, o := range opts {
		switch verb, _, _ := strings.Cut(o, ":"); verb {
		case "fold":
			w[i] = 2
			if slices.Contains(opts, "check") {
				w[i] = 1
			}
		case "check", "call":
			w[i] = 8
		case "bet", "raise":
			w[i] = 4
		case "allin":
			w[i] = 1
		}
		total += w[i]
	}
	x := r.IntN(total)
	o := opts[len(opts)-1]
	for i := range opts {
		if x < w[i] {
			o = opts[i]
			break
		}
		x -= w[i]
	}
	verb, rng, ok := strings.Cut(o, ":")
	if !ok {
		return o
	}
	a, b, _ := strings.Cut(rng, "-")
	lo, _ := strconv.ParseInt(a, 10, 64)
	hi, _ := strconv.ParseInt(b, 10, 64)
	return verb + ":" + strconv.FormatInt(amount(r, lo, hi), 10)
}

type circleSeat struct {
	seat               int
	stack, put, street int64 // chips behind; in the pots this round; on this street
	folded, allIn      bool
	owes               bool
	hole               []crd
}

// circleSettle replays a circle round from its cards and decisions (in the order taken) and
// settles it: RULES.md §6 with no-limit betting, the pots, rake and odd chip.
func circleSettle(id string, in games.RoundInput, seq []act) expect {
	var x expect
	opt := func(k string, def int64) int64 {
		if v, ok := in.Options[k]; ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
		return def
	}
	bySeat := map[int]*circleSeat{}
	var ante = map[int]int64{}
	for _, b := range in.Bets {
		if bySeat[b.Seat] == nil {
			bySeat[b.Seat] = &circleSeat{seat: b.Seat}
		}
		if b.Spot == "stack" {
			bySeat[b.Seat].stack = b.Amount
		} else {
			ante[b.Seat] = b.Amount
		}
	}
	var ps []*circleSeat
	for _, p := range bySeat {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b *circleSeat) int { return a.seat - b.seat })
	// The button: the configured seat, else the highest seat playing; play starts on its left.
	const tableSeats = 10
	button := int(opt("button", int64(ps[len(ps)-1].seat)))
	dist := func(s int) int { return (s - button - 1 + 2*tableSeats) % tableSeats }
	slices.SortFunc(ps, func(a, b *circleSeat) int { return dist(a.seat) - dist(b.seat) })

	put := func(p *circleSeat, a int64) {
		a = min(a, p.stack)
		p.stack -= a
		p.put += a
		p.street += a
		p.allIn = p.stack == 0
	}
	for _, p := range ps {
		put(p, ante[p.seat])
		p.street = 0 // an ante is not a bet of the first street
	}
	if bb := opt("big-blind", 0); bb > 0 {
		sb, big := ps[0], ps[1]
		if len(ps) == 2 { // heads-up: the button posts the small blind
			sb, big = ps[1], ps[0]
		}
		put(sb, opt("small-blind", 0))
		put(big, bb)
	}
	live := func() []*circleSeat {
		var out []*circleSeat
		for _, p := range ps {
			if !p.folded {
				out = append(out, p)
			}
		}
		return out
	}

	// The streets: the cards each seat still in the hand takes, one round of the table per
	// entry, and the community cards (RULES.md §6; burns are not among the round's cards).
	type street struct{ each, board int }
	var streets []street
	switch id {
	case "holdem":
		streets = []street{{each: 2}, {board: 3}, {board: 1}, {board: 1}}
	case "omaha-2-3":
		streets = []street{{each: 4}, {board: 3}, {board: 1}, {board: 1}}
	case "five-card-stud":
		streets = []street{{each: 2}, {each: 1}, {each: 1}, {each: 1}}
	case "seven-card-stud":
		streets = []street{{each: 3}, {each: 1}, {each: 1}, {each: 1}, {each: 1}}
	}
	sh := &shoe{cards: in.Cards}
	var board []crd
	next := 0
	fail := func(format string, a ...any) expect {
		x.err = fmt.Sprintf(format, a...)
		return x
	}
	uncontested := false
streets:
	for _, st := range streets {
		for range st.each {
			for _, p := range live() {
				p.hole = append(p.hole, sh.next())
			}
		}
		for range st.board {
			board = append(board, sh.next())
		}
		// The street's betting, unless at most one seat can bet and it owes nothing.
		var can []*circleSeat
		var top int64
		for _, p := range ps {
			top = max(top, p.street)
			if !p.folded && !p.allIn {
				can = append(can, p)
			}
		}
		if len(can) > 1 || len(can) == 1 && can[0].street < top {
			for _, p := range can {
				p.owes = true
			}
			for slices.ContainsFunc(ps, func(p *circleSeat) bool { return p.owes }) {
				if next >= len(seq) {
					return fail("decisions run out with seats still to act")
				}
				a := seq[next]
				next++
				p := bySeat[a.seat]
				if p == nil || !p.owes || p.folded || p.allIn {
					return fail("seat %d decides %q but owes no decision", a.seat, a.d)
				}
				verb, arg, _ := strings.Cut(a.d, ":")
				switch verb {
				case "fold":
					p.folded = true
				case "check":
				case "call":
					put(p, top-p.street)
				case "bet", "raise":
					to, _ := strconv.ParseInt(arg, 10, 64)
					put(p, to-p.street)
				case "allin":
					put(p, p.stack)
				}
				p.owes = false
				if p.street > top { // more than the bet to call: everyone still in answers it
					top = p.street
					for _, q := range ps {
						q.owes = q != p && !q.folded && !q.allIn
					}
				}
				if len(live()) == 1 {
					uncontested = true // RULES.md §6: the last seat takes the pots, unseen
					break streets
				}
			}
		}
		for _, p := range ps {
			p.street = 0
		}
	}
	if next != len(seq) {
		return fail("%d decisions left over", len(seq)-next)
	}
	x.used = sh.n

	// What nobody matched goes back: the part of the largest contribution above the second.
	var first, second int64
	var topSeat *circleSeat
	for _, p := range ps {
		switch {
		case p.put > first:
			second, first, topSeat = first, p.put, p
		case p.put > second:
			second = p.put
		}
	}
	back := map[int]int64{}
	if topSeat != nil && first > second && !topSeat.folded {
		back[topSeat.seat] = first - second
		x.path("uncalled bet returned")
	}
	in2 := map[int]int64{}
	for _, p := range ps {
		in2[p.seat] = p.put - back[p.seat]
	}
	// The pots: a level for every distinct contribution of a seat still in the hand; each pot
	// takes from every seat what it put in between the previous level and its own, and is open
	// to the seats still in that reached it. What folded seats put in above the top level
	// stays in the last pot.
	var levels []int64
	for _, p := range live() {
		if in2[p.seat] > 0 && !slices.Contains(levels, in2[p.seat]) {
			levels = append(levels, in2[p.seat])
		}
	}
	slices.Sort(levels)
	type pot struct {
		amount   int64
		eligible []*circleSeat
	}
	var pots []pot
	var prev int64
	for _, l := range levels {
		var pt pot
		for _, p := range ps {
			pt.amount += min(in2[p.seat], l) - min(in2[p.seat], prev)
			if !p.folded && in2[p.seat] >= l {
				pt.eligible = append(pt.eligible, p)
			}
		}
		pots = append(pots, pt)
		prev = l
	}
	var above int64
	for _, p := range ps {
		above += max(0, in2[p.seat]-prev)
	}
	if above > 0 {
		if len(pots) == 0 {
			pots = append(pots, pot{eligible: live()})
		}
		pots[len(pots)-1].amount += above
	}
	if len(pots) > 1 {
		x.path("side pot")
	}
	// The rake: the configured share of each pot, rounded down, no more than the cap in all.
	rakeBP := int64(0)
	if s, ok := in.Options["rake"]; ok {
		w, f, _ := strings.Cut(strings.TrimSuffix(s, "%"), ".")
		f = (f + "00")[:2]
		wn, _ := strconv.ParseInt(w, 10, 64)
		fn, _ := strconv.ParseInt(f, 10, 64)
		rakeBP = wn*100 + fn
	}
	rakeCap := opt("rake-cap", 0)
	var raked int64
	// The showdown's ranks (RULES.md §6 "hand" column).
	rank := map[int]int64{}
	if !uncontested {
		for _, p := range live() {
			switch id {
			case "omaha-2-3":
				rank[p.seat] = bestOmaha(p.hole, board)
			default:
				rank[p.seat] = best(append(slices.Clone(p.hole), board...))
			}
		}
		x.path("showdown")
	} else {
		x.path("uncontested")
	}
	won := map[int]int64{}
	for _, pt := range pots {
		rk := pt.amount / 10000 * rakeBP
		rk += pt.amount % 10000 * rakeBP / 10000
		if rakeCap > 0 && raked+rk > rakeCap {
			rk = rakeCap - raked
			x.path("rake cap")
		}
		raked += rk
		var winners []*circleSeat // in the order of play: the button's left first
		var top int64 = -1
		for _, p := range pt.eligible {
			switch r := rank[p.seat]; {
			case r > top:
				top, winners = r, []*circleSeat{p}
			case r == top:
				winners = append(winners, p)
			}
		}
		share := pt.amount - rk
		each, odd := share/int64(len(winners)), share%int64(len(winners))
		if len(winners) > 1 {
			x.path("split pot")
		}
		if odd > 0 {
			x.path("odd chip")
		}
		for i, w := range winners {
			won[w.seat] += each
			if int64(i) < odd { // RULES.md §6: the odd chip to the first seat left of the button
				won[w.seat]++
			}
		}
	}
	for _, p := range ps {
		if p.allIn {
			x.path("all-in")
			break
		}
	}
	for _, p := range ps {
		x.add(key{p.seat, "pot", 0}, in2[p.seat], won[p.seat]-in2[p.seat])
	}
	return x
}
