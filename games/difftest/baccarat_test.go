package difftest

import (
	"math/rand/v2"
	"strconv"

	"github.com/sabot-tables/sabot/games"
)

// bacValue is a card's baccarat value: ace 1, 2–9 pip, ten and court 0 (RULES.md §2; seed 003
// "Figuras y 10s = cero").
func bacValue(c crd) int {
	if c.rank >= 10 {
		return 0
	}
	return c.rank
}

func bacTotal(cs []crd) int {
	t := 0
	for _, c := range cs {
		t += bacValue(c)
	}
	return t % 10 // seed 003 "reste 10"
}

// bankerDraws is RULES.md §2 rule 4 (seed 003's table): the banker's two-card total b against
// the player's third card p.
func bankerDraws(b, p int) bool {
	switch b {
	case 0, 1, 2:
		return true
	case 3:
		return p != 8
	case 4:
		return p >= 2 && p <= 7
	case 5:
		return p >= 4 && p <= 7
	case 6:
		return p == 6 || p == 7
	}
	return false
}

// bacRound plays one random coup of punto-banco, baccarat or chemin-de-fer.
func bacRound(r *rand.Rand, id string) round {
	chemin := id == "chemin-de-fer"
	in := games.RoundInput{Game: id, Decisions: map[string][]string{}}
	spots := []string{"player", "banker", "tie", "player-pair", "banker-pair"}
	switch id {
	case "baccarat":
		spots = []string{"player", "banker", "player-pair", "banker-pair"} // no tie bet (seed 000)
	case "chemin-de-fer":
		spots = []string{"player"} // the punters bet against the bank
	}
	var stake func(string) int64
	in.Limits, stake = limits(r, spots...)

	// Chemin de fer: a player holds the bank (seed 000); the punters' stakes together are at
	// most the bank, and the banker does not punt.
	banker, bank := 0, int64(0)
	if chemin {
		in.Limits = nil
		banker = 1 + r.IntN(9)
		bank = 100 + r.Int64N(500_000)
		in.Options = map[string]string{"banker": strconv.Itoa(banker), "bank": strconv.FormatInt(bank, 10)}
	}
	var stakes int64
	for _, s := range seats(r, 1+r.IntN(7), 9) {
		if chemin {
			if s == banker || stakes >= bank {
				continue
			}
			a := amount(r, 1, bank-stakes)
			if r.IntN(8) == 0 && stakes == 0 {
				a = bank // banco: one punter covers the whole bank
			}
			stakes += a
			in.Bets = append(in.Bets, games.Bet{Seat: s, Spot: "player", Amount: a})
			continue
		}
		for _, sp := range spots {
			if r.IntN(3) == 0 {
				in.Bets = append(in.Bets, games.Bet{Seat: s, Spot: sp, Amount: stake(sp)})
			}
		}
	}
	if chemin && len(in.Bets) == 0 {
		s := banker%9 + 1
		in.Bets = append(in.Bets, games.Bet{Seat: s, Spot: "player", Amount: amount(r, 1, bank)})
	}
	r.Shuffle(len(in.Bets), func(i, j int) { in.Bets[i], in.Bets[j] = in.Bets[j], in.Bets[i] })

	// The seat that plays the punter's hand and holds its option in chemin de fer: the one
	// bet that covers the bank (seed 000 "hace banco"), else the largest stake, equal stakes to
	// the first seat after the banker (RULES.md §2, the project's choice).
	punter := 0
	if chemin {
		var best int64
		dist := func(s int) int { return (s - banker + 9) % 9 }
		for _, b := range in.Bets {
			if b.Amount > best || b.Amount == best && dist(b.Seat) < dist(punter) {
				best, punter = b.Amount, b.Seat
			}
		}
	}

	decks := pick(r, 8, 8, 6) // RULES.md §1: 8 decks (6 allowed)
	if decks != 8 {
		in.Decks = decks
	}
	sh := &shoe{cards: shuffled(r, decks)}
	var p, b []crd
	// RULES.md §2: player, banker, player, banker.
	p = append(p, sh.next())
	b = append(b, sh.next())
	p = append(p, sh.next())
	b = append(b, sh.next())
	pt, bt := bacTotal(p), bacTotal(b)
	if pt < 8 && bt < 8 { // rule 1: a natural 8 or 9 stands both hands
		// Rule 2: the player draws on 0–5. Chemin de fer: 0–4 draw, 5 is the punter's option.
		draws := pt <= 5
		if chemin && pt == 5 {
			draws = r.IntN(2) == 0
			in.Decisions[strconv.Itoa(punter)] = []string{map[bool]string{true: "draw", false: "stand"}[draws]}
		}
		if draws {
			p = append(p, sh.next())
			third := bacValue(p[2])
			bd := bankerDraws(bt, third) // rule 4
			// Chemin de fer: the banker's option on 3 against a 9 and on 5 against a 4.
			if chemin && (bt == 3 && third == 9 || bt == 5 && third == 4) {
				bd = r.IntN(2) == 0
				in.Decisions[strconv.Itoa(banker)] = []string{map[bool]string{true: "draw", false: "stand"}[bd]}
			}
			if bd {
				b = append(b, sh.next())
			}
		} else if bt <= 5 { // rule 3: the player stood
			b = append(b, sh.next())
		}
	}
	var x expect
	switch {
	case len(p) == 2 && len(b) == 2 && (pt >= 8 || bt >= 8):
		x.path("natural")
	case len(p) == 3 && len(b) == 3:
		x.path("both draw")
	case len(p) == 3:
		x.path("player draws, banker stands")
	case len(b) == 3:
		x.path("player stands, banker draws")
	}
	if chemin && pt == 5 && bt < 8 {
		x.path("punter's option")
	}
	if chemin && len(p) == 3 && (bt == 3 && bacValue(p[2]) == 9 || bt == 5 && bacValue(p[2]) == 4) {
		x.path("banker's option")
	}
	pf, bf := bacTotal(p), bacTotal(b)
	res := "tie"
	switch {
	case pf > bf:
		res = "player"
	case bf > pf:
		res = "banker"
	}
	x.path(res)
	pairOf := func(h []crd) bool { return h[0].rank == h[1].rank } // the hand's first two cards
	var covered int64
	for _, bet := range in.Bets {
		a := bet.Amount
		var net int64
		switch {
		case id == "baccarat" && res == "tie":
			net = 0 // seed 000: a tie voids the coup; every bet, pairs too, pushes
		case bet.Spot == "player" || bet.Spot == "banker":
			switch {
			case res == "tie":
				net = 0 // seed 003 "serán devueltas"
			case res != bet.Spot:
				net = -a
			case bet.Spot == "banker":
				net = a - a*5/100 // 0.95:1; the 5% commission rounded down (RULES.md §2 "Commission")
			default:
				net = a
			}
		case bet.Spot == "tie":
			net = -a
			if res == "tie" {
				net = 8 * a // 8:1 (seed 003)
			}
		case bet.Spot == "player-pair":
			net = -a
			if pairOf(p) {
				net = 11 * a // 11:1 (RULES.md §2)
				x.path("player pair")
			}
		case bet.Spot == "banker-pair":
			net = -a
			if pairOf(b) {
				net = 11 * a
				x.path("banker pair")
			}
		}
		covered += a
		x.add(key{bet.Seat, bet.Spot, 0}, a, net)
	}
	if chemin {
		// The banker's stake is what the punters covered; the house takes 5% of the banker's
		// winnings (RULES.md §2).
		var net int64
		switch res {
		case "banker":
			net = covered - covered*5/100
		case "player":
			net = -covered
		}
		x.add(key{banker, "bank", 0}, covered, net)
	}
	for k, v := range in.Decisions {
		if len(v) == 0 {
			delete(in.Decisions, k)
		}
	}
	in.Cards = sh.used()
	x.used = sh.n
	return round{in: in, want: x}
}
