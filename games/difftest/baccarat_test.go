package difftest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

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

// bacSides are the side bets a table may offer by option side-bets (RULES.md §2 "Pay tables"),
// with the spots each puts on the layout.
var bacSides = []struct {
	name  string
	spots []string
}{
	{"dragon-7", []string{"dragon-7"}},
	{"panda-8", []string{"panda-8"}},
	{"lucky-6", []string{"lucky-6"}},
	{"dragon-bonus", []string{"player-dragon", "banker-dragon"}},
	{"either-pair", []string{"either-pair"}},
	{"perfect-pair", []string{"perfect-pair"}},
}

// bacDefaultSides are the side bets each pay table offers without option side-bets (RULES.md
// §2): EZ Baccarat's Dragon 7 and Panda 8, Super 6's Lucky 6.
var bacDefaultSides = map[string][]string{"ez": {"dragon-7", "panda-8"}, "super6": {"lucky-6"}}

// bacRound plays one random coup of punto-banco, baccarat or chemin-de-fer; table is the pay
// table ("standard", "ez", "super6"; ignored in chemin de fer), and the side bets offered are
// the table's own or, half the time, a random choice by option side-bets.
func bacRound(r *rand.Rand, id, table string) round {
	chemin := id == "chemin-de-fer"
	in := games.RoundInput{Game: id, Decisions: map[string][]string{}}
	spots := []string{"player", "banker", "tie", "player-pair", "banker-pair"}
	switch id {
	case "baccarat":
		spots = []string{"player", "banker", "player-pair", "banker-pair"} // no tie bet (seed 000)
	case "chemin-de-fer":
		spots = []string{"player"} // the punters bet against the bank
	}
	if !chemin {
		in.Options = map[string]string{}
		if table != "standard" || r.IntN(2) == 0 {
			in.Options["paytable"] = table
		}
		if r.IntN(4) == 0 {
			in.Options["squeeze"] = "on"
		}
		sides := bacDefaultSides[table]
		if r.IntN(2) == 0 {
			sides = nil
			for _, sb := range bacSides {
				if r.IntN(2) == 0 {
					sides = append(sides, sb.name)
				}
			}
			r.Shuffle(len(sides), func(i, j int) { sides[i], sides[j] = sides[j], sides[i] })
			in.Options["side-bets"] = strings.Join(sides, ",")
			if len(sides) == 0 {
				in.Options["side-bets"] = "none"
			}
		}
		for _, sb := range bacSides {
			if slices.Contains(sides, sb.name) {
				spots = append(spots, sb.spots...)
			}
		}
	}
	var stake func(string) int64
	in.Limits, stake = limits(r, spots...)
	if len(in.Options) == 0 {
		in.Options = nil
	}

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
	// Squeeze (RULES.md §2): each hand's cards are turned up by the seat with the largest bet
	// on it (equal bets: the lowest seat), one "reveal" a card, the player's first.
	if in.Options["squeeze"] == "on" {
		squeezer := func(spot string) int {
			seat, best := 0, int64(0)
			for _, bet := range in.Bets {
				if bet.Spot == spot && (bet.Amount > best || bet.Amount == best && bet.Seat < seat) {
					seat, best = bet.Seat, bet.Amount
				}
			}
			return seat
		}
		for _, h := range []struct {
			spot  string
			cards int
		}{{"player", len(p)}, {"banker", len(b)}} {
			if s := squeezer(h.spot); s != 0 {
				k := strconv.Itoa(s)
				for range h.cards {
					in.Decisions[k] = append(in.Decisions[k], "reveal")
				}
				x.path("squeeze")
			}
		}
	}
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
	same := func(h []crd) bool { return h[0] == h[1] }             // one card twice: a perfect pair
	// A natural is a hand of 8 or 9 in its first two cards (RULES.md §2 rule 1), which then
	// stands: a two-card hand holding 8 or 9 at the end.
	pNat, bNat := len(p) == 2 && pf >= 8, len(b) == 2 && bf >= 8
	// The Dragon Bonus for a hand: a natural win 1:1, a natural tie a push, a win by 4 to 9
	// without a natural 1, 2, 4, 6, 10 or 30:1; anything else loses (RULES.md §2).
	bonus := func(a int64, own, other int, nat, otherNat bool) (int64, string) {
		switch {
		case nat && own > other:
			return a, "dragon bonus natural win"
		case nat && otherNat && own == other:
			return 0, "dragon bonus natural tie"
		case !nat && own-other >= 4:
			return a * map[int]int64{4: 1, 5: 2, 6: 4, 7: 6, 8: 10, 9: 30}[own-other], fmt.Sprintf("dragon bonus by %d", own-other)
		}
		return -a, ""
	}
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
			case bet.Spot == "banker" && table == "ez" && bf == 7 && len(b) == 3:
				net = 0 // EZ Baccarat: a banker win with three cards to 7 pushes
				x.path("ez three-card 7 push")
			case bet.Spot == "banker" && table == "ez":
				net = a // no commission
			case bet.Spot == "banker" && table == "super6" && bf == 6:
				// Super 6: half the stake, the half cent to the player (RULES.md §2).
				net = a / 2
				if a%2 == 1 {
					net++
					x.path("super 6 half rounded up")
				}
				x.path("super 6 win with 6")
			case bet.Spot == "banker" && table == "super6":
				net = a
			case bet.Spot == "banker":
				net = a - a*5/100 // 0.95:1; the 5% commission rounded down (RULES.md §2 "Commission")
			default:
				net = a
			}
		case bet.Spot == "dragon-7":
			net = -a
			if res == "banker" && bf == 7 && len(b) == 3 {
				net = 40 * a
				x.path("dragon 7")
			}
		case bet.Spot == "panda-8":
			net = -a
			if res == "player" && pf == 8 && len(p) == 3 {
				net = 25 * a
				x.path("panda 8")
			}
		case bet.Spot == "lucky-6":
			net = -a
			if res == "banker" && bf == 6 {
				net = 12 * a
				if len(b) == 3 {
					net = 20 * a
				}
				x.path(fmt.Sprintf("lucky 6 in %d cards", len(b)))
			}
		case bet.Spot == "player-dragon" || bet.Spot == "banker-dragon":
			var pth string
			if bet.Spot == "player-dragon" {
				net, pth = bonus(a, pf, bf, pNat, bNat)
			} else {
				net, pth = bonus(a, bf, pf, bNat, pNat)
			}
			if pth != "" {
				x.path(pth)
			}
		case bet.Spot == "either-pair":
			net = -a
			if pairOf(p) || pairOf(b) {
				net = 5 * a
				x.path("either pair")
			}
		case bet.Spot == "perfect-pair":
			net = -a
			if same(p) || same(b) {
				net = 25 * a
				x.path("perfect pair")
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
