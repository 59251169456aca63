package progressive

import (
	"crypto/rand"
	"fmt"
	"io"
	"math/big"
	"slices"

	"github.com/sabot-tables/sabot/shoe/card"
)

// The random prizes of seed 002.
const (
	// MagicCard, "carta mágica": the system draws a card and a seat; the seat wins if the card
	// is among the cards it was dealt.
	MagicCard = "carta-magica"
	// LuckyPlayer, "jugador afortunado": the system draws a seat, which wins for being there.
	LuckyPlayer = "jugador-afortunado"
)

// Drawn is a random prize drawn for a round: its kind, the seat chosen and, for MagicCard, the
// card. It is recorded with the round (RULES.md §7: "drawn with the cryptographic RNG and
// recorded").
type Drawn struct {
	Kind string    `json:"kind"`
	Seat int       `json:"seat"`
	Card card.Card `json:"card,omitzero"`
}

// Won reports whether the draw wins: a lucky player always, a magic card when the seat's hand
// (as dealt, folded or not) holds the card. A void hand wins nothing.
func (d *Drawn) Won(bets []Bet) bool {
	for _, b := range bets {
		if b.Seat != d.Seat {
			continue
		}
		if b.Void {
			return false
		}
		return d.Kind == LuckyPlayer || slices.Contains(b.Cards, d.Card)
	}
	return false
}

// String says the draw for people: "carta mágica 7h for seat 3".
func (d *Drawn) String() string {
	if d.Kind == MagicCard {
		return fmt.Sprintf("carta mágica %s for seat %d", d.Card, d.Seat)
	}
	return fmt.Sprintf("jugador afortunado: seat %d", d.Seat)
}

// Draw decides, with the randomness in rng (crypto/rand.Reader when nil), whether a random prize
// is drawn for a round whose progressive bets are on seats, and if so which: with probability
// 1/RandomOdds a prize is drawn; the kind is chosen evenly among the prizes offered, the seat
// evenly among seats (only seats with a progressive bet take part: seed 002, "Para acceder a los
// premios … el jugador previamente debe habilitar su participación"), and a magic card evenly
// among the 52. It returns nil when nothing is drawn. Every choice is an unbiased draw
// (crypto/rand.Int rejects the out-of-range values).
func (c Config) Draw(rng io.Reader, seats []int) (*Drawn, error) {
	if c.RandomOdds == 0 || len(seats) == 0 {
		return nil, nil
	}
	if rng == nil {
		rng = rand.Reader
	}
	pick := func(n int64) (int64, error) {
		v, err := rand.Int(rng, big.NewInt(n))
		if err != nil {
			return 0, fmt.Errorf("progressive: drawing a random prize: %w", err)
		}
		return v.Int64(), nil
	}
	hit, err := pick(c.RandomOdds)
	if err != nil || hit != 0 {
		return nil, err
	}
	var kinds []string
	if c.MagicCard > 0 {
		kinds = append(kinds, MagicCard)
	}
	if c.LuckyPlayer > 0 {
		kinds = append(kinds, LuckyPlayer)
	}
	k, err := pick(int64(len(kinds)))
	if err != nil {
		return nil, err
	}
	sorted := slices.Clone(seats)
	slices.Sort(sorted)
	s, err := pick(int64(len(sorted)))
	if err != nil {
		return nil, err
	}
	d := &Drawn{Kind: kinds[k], Seat: sorted[s]}
	if d.Kind == MagicCard {
		i, err := pick(52)
		if err != nil {
			return nil, err
		}
		d.Card = card.FromIndex(int(i))
	}
	return d, nil
}
