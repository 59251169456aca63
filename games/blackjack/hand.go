package blackjack

import "github.com/sabot-tables/sabot/shoe/card"

// Value is a card's blackjack value with the ace as 1: A = 1, 2–10 pip, court = 10 (RULES.md §4).
func Value(c card.Card) int { return c.PipValue() }

// Score returns the best total of a hand and whether it is soft (an ace counted as 11). Aces
// count 11 when that does not pass 21 (RULES.md §4: "A = 1 or 11").
func Score(cards []card.Card) (total int, soft bool) {
	ace := false
	for _, c := range cards {
		v := Value(c)
		total += v
		if v == 1 {
			ace = true
		}
	}
	if ace && total+10 <= 21 {
		return total + 10, true
	}
	return total, false
}

// Natural reports whether two cards are an ace and a ten-value card. Whether they are a
// blackjack also depends on the hand not coming from a split (RULES.md §4).
func Natural(a, b card.Card) bool {
	va, vb := Value(a), Value(b)
	return va == 1 && vb == 10 || va == 10 && vb == 1
}

// Pair is the result of the perfect-pairs side bet (RULES.md §4, seed 000).
type Pair uint8

// The perfect-pairs results, lowest first.
const (
	NoPair       Pair = iota // lost
	MixedPair                // same rank, different colour: 6:1
	ColouredPair             // same rank and colour, different suit: 12:1
	PerfectPair              // same rank and suit: 25:1
)

var pairNames = [...]string{"no pair", "mixed pair", "coloured pair", "perfect pair"}

func (p Pair) String() string {
	if int(p) < len(pairNames) {
		return pairNames[p]
	}
	return "Pair(?)"
}

// Pays returns the pair's payout to one (0 for NoPair: the bet is lost).
func (p Pair) Pays() int64 {
	switch p {
	case MixedPair:
		return 6
	case ColouredPair:
		return 12
	case PerfectPair:
		return 25
	}
	return 0
}

// PairOf classifies a box's first two cards for the perfect-pairs side bet (RULES.md §4).
func PairOf(a, b card.Card) Pair {
	switch {
	case a.Rank() != b.Rank():
		return NoPair
	case a.Suit() == b.Suit():
		return PerfectPair
	case a.Suit().Red() == b.Suit().Red():
		return ColouredPair
	}
	return MixedPair
}

// Prize is a real21 promotional prize (RULES.md §4, seed 002 "PREMIOS PROMOCIONALES").
type Prize uint8

// The prizes, in the order RULES.md §4 checks them; only the first that matches is paid.
const (
	NoPrize      Prize = iota
	SevenCards         // seven cards without passing 21: 1:1
	JackOfSpades       // a blackjack of an ace and the jack of spades: 4:1
	Suited678          // 6-7-8 of one suit, exactly those three cards: 5:1
	SuitedSevens       // three sevens of one suit, exactly three cards: 7:1
)

var prizeNames = [...]string{"", "seven-cards", "jack-of-spades", "suited-678", "suited-777"}

func (p Prize) String() string {
	if int(p) < len(prizeNames) {
		return prizeNames[p]
	}
	return "Prize(?)"
}

// Pays returns the prize's payout to one.
func (p Prize) Pays() int64 {
	switch p {
	case SevenCards:
		return 1
	case JackOfSpades:
		return 4
	case Suited678:
		return 5
	case SuitedSevens:
		return 7
	}
	return 0
}

var jackOfSpades = card.New(card.Jack, card.Spades)

// PrizeOf returns the first real21 prize a hand's cards win (RULES.md §4 order), or NoPrize.
// blackjack says whether the two cards count as a blackjack (an unsplit hand).
func PrizeOf(cards []card.Card, blackjack bool) Prize {
	switch len(cards) {
	case 7:
		if t, _ := Score(cards); t <= 21 {
			return SevenCards
		}
	case 2:
		a, b := cards[0], cards[1]
		if blackjack && (a == jackOfSpades && b.Rank() == card.Ace || b == jackOfSpades && a.Rank() == card.Ace) {
			return JackOfSpades
		}
	case 3:
		s := cards[0].Suit()
		if cards[1].Suit() != s || cards[2].Suit() != s {
			return NoPrize
		}
		var seen [14]bool
		for _, c := range cards {
			seen[c.Rank()] = true
		}
		if seen[card.Six] && seen[card.Seven] && seen[card.Eight] {
			return Suited678
		}
		// Three sevens of one suit: only a multi-deck shoe holds them.
		if cards[0].Rank() == card.Seven && cards[1].Rank() == card.Seven && cards[2].Rank() == card.Seven {
			return SuitedSevens
		}
	}
	return NoPrize
}
