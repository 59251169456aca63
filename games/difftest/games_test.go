package difftest

import (
	"math/rand/v2"
	"slices"
)

// references lists the reference's random round of every game and preset of the catalog, with
// the paths each must play.
func references() []game {
	bj := []string{"perfect pair", "coloured pair", "mixed pair", "perfect pairs lost", "a pair won, then split",
		"split", "resplit", "split aces", "double", "surrender", "blackjack", "blackjack against blackjack",
		"dealer blackjack", "dealer busts"}
	var gs []game
	for _, p := range []string{"classic", "real21", "retiro", "enhc"} {
		paths := slices.Clone(bj)
		switch p {
		case "classic":
			paths = slices.DeleteFunc(paths, func(s string) bool { return s == "resplit" })
			paths = append(paths, "the peek finds a blackjack", "insurance won", "insurance lost", "even money")
		case "real21":
			paths = append(paths, "seven cards", "ace and jack of spades", "suited 6-7-8", "suited 7-7-7", "even money", "blackjack paid at once")
		case "retiro":
			paths = append(paths, "insurance won", "insurance lost")
		case "enhc":
			paths = append(paths, "insurance won", "insurance lost", "even money", "blackjack paid at once")
		}
		gs = append(gs, game{id: "blackjack", rules: p, play: func(r *rand.Rand) round { return bjRound(r, p, false) }, paths: paths})
	}
	gs = append(gs, game{id: "challenge21", play: func(r *rand.Rand) round { return bjRound(r, "", true) },
		paths: []string{"split", "double", "surrender", "blackjack", "blackjack against blackjack", "blackjack paid at once",
			"dealer blackjack", "dealer busts", "insurance won", "insurance lost", "even money"}})

	bac := []string{"natural", "both draw", "player draws, banker stands", "player stands, banker draws",
		"player", "banker", "tie", "player pair", "banker pair"}
	// The side bets any pay table may offer (RULES.md §2 "Pay tables"), and each table's own.
	sides := []string{"dragon 7", "panda 8", "lucky 6 in 2 cards", "lucky 6 in 3 cards", "dragon bonus natural win",
		"dragon bonus natural tie", "dragon bonus by 4", "dragon bonus by 5", "dragon bonus by 6", "dragon bonus by 7",
		"dragon bonus by 8", "dragon bonus by 9", "either pair", "perfect pair"}
	for _, id := range []string{"punto-banco", "baccarat", "chemin-de-fer"} {
		for _, table := range []string{"standard", "ez", "super6"} {
			if id == "chemin-de-fer" && table != "standard" {
				continue
			}
			paths := append(slices.Clone(bac), append(sides, "squeeze")...)
			name := id + "/" + table
			switch {
			case id == "chemin-de-fer":
				paths = []string{"natural", "both draw", "player", "banker", "tie", "punter's option", "banker's option"}
				name = id
			case table == "ez":
				paths = append(paths, "ez three-card 7 push")
			case table == "super6":
				paths = append(paths, "super 6 win with 6", "super 6 half rounded up")
			}
			if id == "baccarat" { // a tie voids the coup: no natural tie pushes on its own
				paths = slices.DeleteFunc(paths, func(s string) bool { return s == "dragon bonus natural tie" })
			}
			gs = append(gs, game{id: id, name: name, play: func(r *rand.Rand) round { return bacRound(r, id, table) }, paths: paths})
		}
	}

	tr := []string{"noir wins", "rouge wins", "refait", "refait 31"}
	gs = append(gs, game{id: "trente-et-quarante", play: func(r *rand.Rand) round { return trRound(r, false) }, paths: tr},
		game{id: "trente-et-quarante", name: "trente-et-quarante/prison", play: func(r *rand.Rand) round { return trRound(r, true) }, paths: tr})

	for _, id := range []string{"caribbean-stud", "draw-poker", "three-card-poker", "go-poker"} {
		gs = append(gs, game{id: id, play: func(r *rand.Rand) round { return houseRound(r, id) }, paths: housePaths[id]})
	}
	circle := []string{"showdown", "uncontested", "side pot", "split pot", "odd chip", "uncalled bet returned", "rake cap", "all-in"}
	for _, id := range []string{"holdem", "omaha-2-3", "five-card-stud", "seven-card-stud"} {
		gs = append(gs, game{id: id, play: func(r *rand.Rand) round { return circleRound(r, id) }, paths: circle})
	}
	return gs
}

// housePaths are the paths of the house poker games: every line of their pay tables.
var housePaths = map[string][]string{
	"caribbean-stud": {"fold", "dealer does not qualify", "win", "lose", "push", "bet pays 1", "bet pays 2", "bet pays 3",
		"bet pays 4", "bet pays 5", "bet pays 7", "bet pays 20", "bet pays 50", "bet pays 100",
		"progressive flush", "progressive full house", "progressive four of a kind", "progressive straight flush", "progressive royal flush", "void"},
	"draw-poker": {"fold", "exchange", "dealer does not qualify", "win", "lose", "bet pays 1", "bet pays 2", "bet pays 3",
		"bet pays 4", "bet pays 5", "bet pays 7", "progressive flush", "progressive full house", "void"},
	"three-card-poker": {"fold", "dealer does not qualify", "win", "lose", "push", "ante bonus 1", "ante bonus 4", "ante bonus 5",
		"pair plus 1", "pair plus 4", "pair plus 6", "pair plus 30", "pair plus 40", "pair plus lost", "void"},
	"go-poker": {"pays 1", "pays 2", "pays 3", "pays 5", "pays 8", "pays 11", "pays 50", "pays 200", "pays 1000", "lose",
		"progressive flush", "progressive full house", "progressive four of a kind", "progressive straight flush", "progressive royal flush", "void"},
}
