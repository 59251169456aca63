package baccarat

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// PayTable is how the player and banker bets are paid (RULES.md §2 "Pay tables"), option
// OptPayTable.
type PayTable uint8

// The pay tables.
const (
	// Standard: banker 1:1 less the 5% commission (0.95:1), player 1:1.
	Standard PayTable = iota
	// EZ is EZ Baccarat, commission free: banker 1:1, a push when the banker wins with a
	// three-card 7; player 1:1.
	EZ
	// Super6 is Super 6 (also "Punto 2000", "no commission"): banker 1:1, 1:2 when the banker
	// wins with a 6; player 1:1.
	Super6
)

var payTableNames = [...]string{"standard", "ez", "super6"}

// String returns the option's value for the table.
func (t PayTable) String() string {
	if int(t) < len(payTableNames) {
		return payTableNames[t]
	}
	return fmt.Sprintf("PayTable(%d)", uint8(t))
}

// ParsePayTable reads an OptPayTable value.
func ParsePayTable(s string) (PayTable, error) {
	for i, n := range payTableNames {
		if n == s {
			return PayTable(i), nil
		}
	}
	return 0, fmt.Errorf("baccarat: unknown pay table %q (standard, ez, super6)", s)
}

// The side bets a table may offer (option OptSideBets), besides the tie and the two pairs.
const (
	SpotDragon7     = "dragon-7"      // the banker wins with a three-card 7: 40:1
	SpotPanda8      = "panda-8"       // the player wins with a three-card 8: 25:1
	SpotLucky6      = "lucky-6"       // the banker wins with a 6: 12:1 in two cards, 20:1 in three
	SpotPlayerBonus = "player-dragon" // Dragon Bonus on the player hand
	SpotBankerBonus = "banker-dragon" // Dragon Bonus on the banker hand
	SpotEitherPair  = "either-pair"   // either hand's first two cards of one rank: 5:1
	SpotPerfectPair = "perfect-pair"  // either hand's first two cards identical (rank and suit): 25:1
)

// SideDragonBonus is the OptSideBets name of the Dragon Bonus, which offers both its spots.
const SideDragonBonus = "dragon-bonus"

// sideBets are the OptSideBets names in their layout order, with the spots each offers.
var sideBets = []struct {
	name  string
	spots []string
}{
	{SpotDragon7, []string{SpotDragon7}},
	{SpotPanda8, []string{SpotPanda8}},
	{SpotLucky6, []string{SpotLucky6}},
	{SideDragonBonus, []string{SpotPlayerBonus, SpotBankerBonus}},
	{SpotEitherPair, []string{SpotEitherPair}},
	{SpotPerfectPair, []string{SpotPerfectPair}},
}

// DefaultSideBets are the side bets a pay table offers when OptSideBets is not given: EZ
// Baccarat's Dragon 7 and Panda 8, Super 6's Lucky 6 (RULES.md §2 "Pay tables").
func DefaultSideBets(t PayTable) []string {
	switch t {
	case EZ:
		return []string{SpotDragon7, SpotPanda8}
	case Super6:
		return []string{SpotLucky6}
	}
	return nil
}

// ParseSideBets reads an OptSideBets value: side bet names separated by commas ("" or "none"
// for none), returned in layout order.
func ParseSideBets(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		return []string{}, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		known := false
		for _, sb := range sideBets {
			known = known || sb.name == n
		}
		if !known {
			var names []string
			for _, sb := range sideBets {
				names = append(names, sb.name)
			}
			return nil, fmt.Errorf("baccarat: unknown side bet %q (%s)", n, strings.Join(names, ", "))
		}
		if want[n] {
			return nil, fmt.Errorf("baccarat: side bet %q given twice", n)
		}
		want[n] = true
	}
	var out []string
	for _, sb := range sideBets {
		if want[sb.name] {
			out = append(out, sb.name)
		}
	}
	return out, nil
}

// sideSpots returns the spots that side bets offer, in layout order.
func sideSpots(names []string) []string {
	var out []string
	for _, sb := range sideBets {
		if slices.Contains(names, sb.name) {
			out = append(out, sb.spots...)
		}
	}
	return out
}

// Summary is what a coup's pay tables read of it: each hand's final total and whether it drew
// a third card, and the first two cards of each hand (a pair of one rank, or identical cards).
// A two-card hand of 8 or 9 is a natural.
type Summary struct {
	Player, Banker               int // final totals
	PlayerDrew, BankerDrew       bool
	PlayerPair, BankerPair       bool // the first two cards are of one rank
	PlayerPerfect, BankerPerfect bool // and of one suit: the same card
}

// Result returns "player", "banker" or "tie".
func (s Summary) Result() string {
	switch {
	case s.Player > s.Banker:
		return ResultPlayer
	case s.Banker > s.Player:
		return ResultBanker
	}
	return ResultTie
}

// PlayerNatural reports whether the player hand is a natural (RULES.md §2 rule 1).
func (s Summary) PlayerNatural() bool { return !s.PlayerDrew && Natural(s.Player) }

// BankerNatural reports whether the banker hand is a natural.
func (s Summary) BankerNatural() bool { return !s.BankerDrew && Natural(s.Banker) }

// Pay is what a bet wins per unit staked, Num/Den: {1, 1} even money, {19, 20} the commission's
// 0.95:1; {0, 1} is a push and {-1, 1} a loss.
type Pay struct{ Num, Den int64 }

// The pays that are not wins.
var (
	Push = Pay{0, 1}
	Lose = Pay{-1, 1}
)

func win(n int64) Pay { return Pay{n, 1} }

// Net is what a bet of a cents nets at this pay. A win that is not a whole number of cents is
// rounded up to the cent, the fraction going to the player, as the commission is (RULES.md §2
// "Commission": a player is never charged more than the posted 5%, nor paid less than the
// posted 1:2): a 110-cent banker bet wins 105 at 0.95:1, a 101-cent banker bet winning with a 6
// at Super 6 wins 51.
func (p Pay) Net(a int64) int64 {
	switch {
	case p.Num < 0:
		return -a
	case p.Num == 0:
		return 0
	}
	return (a*p.Num + p.Den - 1) / p.Den
}

// String writes the pay as the layouts do: "8:1", "0.95:1", "1:2", "push", "lose".
func (p Pay) String() string {
	switch {
	case p.Num < 0:
		return "lose"
	case p.Num == 0:
		return "push"
	case p.Den == 1:
		return fmt.Sprintf("%d:1", p.Num)
	case p.Num == 1:
		return fmt.Sprintf("1:%d", p.Den)
	}
	// 19:20 is written as the layouts write the commission's pay: 0.95:1.
	d := new(big.Rat).SetFrac64(p.Num, p.Den).FloatString(6)
	return strings.TrimRight(strings.TrimRight(d, "0"), ".") + ":1"
}

// The fixed pays of RULES.md §2.
const (
	payTie       = 8  // tie 8:1
	payPair      = 11 // player and banker pairs 11:1
	payDragon7   = 40 // Dragon 7 40:1
	payPanda8    = 25 // Panda 8 25:1
	payLucky6Two = 12 // Lucky 6, two cards: 12:1
	payLucky6Thr = 20 // Lucky 6, three cards: 20:1
	payEither    = 5  // Either Pair 5:1
	payPerfect   = 25 // Perfect Pair 25:1
)

// bonusMargin is the Dragon Bonus for a non-natural win by 4 to 9 points (RULES.md §2 "Pay
// tables").
var bonusMargin = [10]int64{4: 1, 5: 2, 6: 4, 7: 6, 8: 10, 9: 30}

// PayOf is the pay of a bet on spot in a coup of variant v at pay table t (RULES.md §2). It is
// the engine's settlement and the exact math's pay alike; a spot the game does not know is a
// loss (the engine refuses such bets before the deal).
func PayOf(v Variant, t PayTable, spot string, s Summary) Pay {
	res := s.Result()
	if res == ResultTie && v == Baccarat {
		return Push // seed 000: the coup is void, every bet pushes (RULES.md §2)
	}
	switch spot {
	case SpotPlayer:
		switch res {
		case ResultTie:
			return Push // ties push player and banker (seed 003 "serán devueltas")
		case ResultPlayer:
			return win(1)
		}
		return Lose
	case SpotBanker:
		switch res {
		case ResultTie:
			return Push
		case ResultPlayer:
			return Lose
		}
		switch t {
		case EZ:
			if s.Banker == 7 && s.BankerDrew {
				return Push // EZ Baccarat: a winning three-card 7 pushes
			}
			return win(1)
		case Super6:
			if s.Banker == 6 {
				return Pay{1, 2} // Super 6: a win with 6 pays 1:2
			}
			return win(1)
		}
		return Pay{100 - CommissionPercent, 100} // 0.95:1
	case SpotTie:
		if res == ResultTie {
			return win(payTie)
		}
	case SpotPlayerPair:
		if s.PlayerPair {
			return win(payPair)
		}
	case SpotBankerPair:
		if s.BankerPair {
			return win(payPair)
		}
	case SpotEitherPair:
		if s.PlayerPair || s.BankerPair {
			return win(payEither)
		}
	case SpotPerfectPair:
		if s.PlayerPerfect || s.BankerPerfect {
			return win(payPerfect)
		}
	case SpotDragon7:
		if res == ResultBanker && s.Banker == 7 && s.BankerDrew {
			return win(payDragon7)
		}
	case SpotPanda8:
		if res == ResultPlayer && s.Player == 8 && s.PlayerDrew {
			return win(payPanda8)
		}
	case SpotLucky6:
		if res == ResultBanker && s.Banker == 6 {
			if s.BankerDrew {
				return win(payLucky6Thr)
			}
			return win(payLucky6Two)
		}
	case SpotPlayerBonus, SpotBankerBonus:
		own, other, nat, otherNat := s.Player, s.Banker, s.PlayerNatural(), s.BankerNatural()
		if spot == SpotBankerBonus {
			own, other, nat, otherNat = other, own, otherNat, nat
		}
		switch {
		case nat && own > other:
			return win(1) // a natural win
		case nat && otherNat && own == other:
			return Push // a natural tie
		case !nat && own-other >= 4:
			return win(bonusMargin[own-other])
		}
	}
	return Lose
}
