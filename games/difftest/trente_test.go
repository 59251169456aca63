package difftest

import (
	"math/rand/v2"

	"github.com/sabot-tables/sabot/games"
)

// trValue is a card's value in trente et quarante: ace 1, 2–10 pip, court 10 (RULES.md §3).
func trValue(c crd) int { return min(c.rank, 10) }

// trRound plays one random coup of trente et quarante; prison selects the 31 tie's "en prison"
// (RULES.md §3 configurable) instead of the half stake.
func trRound(r *rand.Rand, prison bool) round {
	in := games.RoundInput{Game: "trente-et-quarante"}
	if prison {
		in.Options = map[string]string{"tie31": "prison"}
	} else if r.IntN(2) == 0 {
		in.Options = map[string]string{"tie31": "half"}
	}
	chances := []string{"rouge", "noir", "couleur", "inverse"}
	var stake func(string) int64
	in.Limits, stake = limits(r, chances...)
	for _, s := range seats(r, 1+r.IntN(7), 9) {
		for _, ch := range chances {
			if r.IntN(3) == 0 {
				in.Bets = append(in.Bets, games.Bet{Seat: s, Spot: ch, Amount: stake(ch)})
			}
		}
	}
	decks := pick(r, 6, 6, 8) // RULES.md §1: 6 decks (6–8)
	if decks != 6 {
		in.Decks = decks
	}
	sh := &shoe{cards: shuffled(r, decks)}
	// RULES.md §3: the noir row is dealt to 31 or more, then the rouge row.
	var noir []crd
	nt, rt := 0, 0
	for nt < 31 {
		c := sh.next()
		noir = append(noir, c)
		nt += trValue(c)
	}
	for rt < 31 {
		rt += trValue(sh.next())
	}
	var x expect
	switch {
	case nt == rt && nt == 31:
		x.path("refait 31")
	case nt == rt:
		x.path("refait")
	case nt < rt:
		x.path("noir wins")
	default:
		x.path("rouge wins")
	}
	for _, b := range in.Bets {
		a := b.Amount
		var net int64
		switch {
		case nt == rt && nt > 31:
			net = 0 // a refait: every bet pushes
		case nt == rt && prison:
			net = -a // en prison: the stake is held (and a later coup may free it)
		case nt == rt:
			net = -(a / 2) // loses half its stake, an odd cent in the player's favour (RULES.md §3)
		default:
			win := "noir"
			if rt < nt {
				win = "rouge"
			}
			// couleur: the first noir card's colour is the winning row's (rouge is red).
			colour := "inverse"
			if noir[0].red() == (win == "rouge") {
				colour = "couleur"
			}
			net = -a
			if b.Spot == win || b.Spot == colour {
				net = a // every chance pays 1:1
			}
		}
		x.add(key{b.Seat, b.Spot, 0}, a, net)
	}
	in.Cards = sh.used()
	x.used = sh.n
	return round{in: in, want: x}
}
