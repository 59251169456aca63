package baccarat

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"

	"github.com/sabot-tables/sabot/shoe/card"
)

// MaxDecks is the largest shoe of RULES.md §0 (N = 1, 2, 4, 6 or 8).
const MaxDecks = 8

// Composition is a shoe's cards by rank (index 0 = ace … 12 = king): all the baccarat math
// needs, since a coup depends on values and the pairs on ranks, never on suits.
type Composition [13]int

// Decks returns the composition of n full decks.
func Decks(n int) Composition {
	var c Composition
	for i := range c {
		c[i] = 4 * n
	}
	return c
}

// FromCounts returns the rank composition of a card composition.
func FromCounts(cs card.Counts) Composition {
	var c Composition
	for i, n := range cs {
		c[card.FromIndex(i).Rank()-1] += n
	}
	return c
}

// Total returns the number of cards.
func (c Composition) Total() int {
	t := 0
	for _, n := range c {
		t += n
	}
	return t
}

// Check refuses a composition that no shoe of decks decks can leave: a negative count, more of
// a rank than decks decks hold, or fewer than the six cards a coup may need.
func (c Composition) Check(decks int) error {
	for i, n := range c {
		r := card.Rank(i + 1)
		if n < 0 {
			return fmt.Errorf("baccarat: composition: %d of rank %s: a count cannot be negative", n, r)
		}
		if n > 4*decks {
			return fmt.Errorf("baccarat: composition: %d of rank %s: impossible, a %d-deck shoe holds %d", n, r, decks, 4*decks)
		}
	}
	if t := c.Total(); t < 6 {
		return fmt.Errorf("baccarat: composition: %d cards: a coup may need 6", t)
	}
	return nil
}

// ParseComposition reads a shoe composition, one entry a line, "#" starting a comment:
//
//	A 31      a rank (A 2 … 9 T J Q K, or 10) and how many of it are left
//	Kh 7      a card and how many of it are left (summed into its rank)
//
// Every rank must be given once, by rank or by its cards; a card line needs all four suits of
// its rank. The counts are checked against decks decks (Composition.Check).
func ParseComposition(r io.Reader, decks int) (Composition, error) {
	var c Composition
	var byRank [13]bool
	var bySuit [13][4]bool
	sc := bufio.NewScanner(io.LimitReader(r, 1<<20))
	line := 0
	for sc.Scan() {
		line++
		s := sc.Text()
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		f := strings.Fields(s)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return c, fmt.Errorf("baccarat: composition line %d: want \"RANK COUNT\" or \"CARD COUNT\", got %q", line, strings.TrimSpace(s))
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			return c, fmt.Errorf("baccarat: composition line %d: count %q is not a whole number", line, f[1])
		}
		if n < 0 {
			return c, fmt.Errorf("baccarat: composition line %d: %s %d: a count cannot be negative", line, f[0], n)
		}
		if n > 4*MaxDecks {
			return c, fmt.Errorf("baccarat: composition line %d: %s %d: impossible, no shoe holds so many", line, f[0], n)
		}
		if x, err := card.Parse(f[0]); err == nil {
			ri := int(x.Rank()) - 1
			if byRank[ri] || bySuit[ri][x.Suit()] {
				return c, fmt.Errorf("baccarat: composition line %d: %s given twice", line, x)
			}
			if n > decks {
				return c, fmt.Errorf("baccarat: composition line %d: %s %d: impossible, a %d-deck shoe holds %d", line, x, n, decks, decks)
			}
			bySuit[ri][x.Suit()] = true
			c[ri] += n
			continue
		}
		rs := f[0]
		if rs == "10" {
			rs = "T"
		}
		ri := strings.Index("A23456789TJQK", rs)
		if len(rs) != 1 || ri < 0 {
			return c, fmt.Errorf("baccarat: composition line %d: %q is neither a rank nor a card", line, f[0])
		}
		if byRank[ri] || bySuit[ri] != [4]bool{} {
			return c, fmt.Errorf("baccarat: composition line %d: rank %s given twice", line, rs)
		}
		byRank[ri] = true
		c[ri] = n
	}
	if err := sc.Err(); err != nil {
		return c, fmt.Errorf("baccarat: composition: %w", err)
	}
	var missing []string
	for i := range c {
		r := card.Rank(i + 1).String()
		switch {
		case byRank[i]:
		case bySuit[i] == [4]bool{true, true, true, true}:
		case bySuit[i] == [4]bool{}:
			missing = append(missing, r)
		default:
			return c, fmt.Errorf("baccarat: composition: rank %s is given by some of its cards only: give all four suits, or the rank", r)
		}
	}
	if len(missing) > 0 {
		return c, fmt.Errorf("baccarat: composition: no count for %s", strings.Join(missing, " "))
	}
	return c, c.Check(decks)
}

// Exact holds the exact odds of a coup dealt from one composition, from every sequence of six
// cards (a coup uses four to six; counting every coup as six cards gives every sequence the
// same denominator, Cards·(Cards−1)·…·(Cards−5)).
type Exact struct {
	Composition Composition `json:"composition"`
	Cards       int         `json:"cards"`
	// Sequences is the number of ordered six-card sequences; Banker, Player and Tie count those
	// that give each result. They add up to Sequences.
	Sequences uint64 `json:"sequences"`
	Banker    uint64 `json:"banker"`
	Player    uint64 `json:"player"`
	Tie       uint64 `json:"tie"`
	// PairNum/PairDen is the chance that a hand's first two cards are a pair (the same for
	// player and banker: any two cards of the shoe are alike).
	PairNum uint64 `json:"pair_num"`
	PairDen uint64 `json:"pair_den"`
	// BothPairs/FourDen is the chance that both hands' first two cards are pairs: of the
	// FourDen ordered sequences of the coup's first four cards, BothPairs deal two pairs.
	BothPairs uint64 `json:"both_pairs"`
	FourDen   uint64 `json:"four_den"`
	// Suited says the composition was given card by card (ExactCards): then PerfectNum/PairDen
	// is the chance that a hand's first two cards are the same card (a perfect pair), and
	// BothPerfect/FourDen that both hands' are.
	Suited      bool   `json:"suited,omitempty"`
	PerfectNum  uint64 `json:"perfect_num,omitempty"`
	BothPerfect uint64 `json:"both_perfect,omitempty"`
	// Outcomes counts the sequences by what every bet but the pairs is settled on: the
	// player's final total, the banker's, whether the player drew a third card and whether
	// the banker did ([player][banker][player drew][banker drew]; a hand that did not draw
	// and holds 8 or 9 is a natural).
	Outcomes [10][10][2][2]uint64 `json:"-"`
}

// ErrComposition is wrapped by ExactOdds for a composition it cannot enumerate.
var ErrComposition = errors.New("baccarat: composition")

// ExactOdds enumerates every coup the composition can deal under the punto banco tableau
// (RULES.md §2) and counts each result exactly. The counts are exact integers; c is refused
// (ErrComposition) unless Check(MaxDecks) passes.
func ExactOdds(c Composition) (*Exact, error) {
	if err := c.Check(MaxDecks); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrComposition, err)
	}
	// The coup depends on baccarat values only: ten and court cards are all 0.
	var v [10]uint64
	for i, n := range c {
		v[Value(card.Rank(i+1))] += uint64(n)
	}
	n := uint64(c.Total())
	x := &Exact{Composition: c, Cards: int(n)}
	x.Sequences = n * (n - 1) * (n - 2) * (n - 3) * (n - 4) * (n - 5)
	// tail[k] completes a coup of k cards to six: the ways to deal the 6−k cards after it.
	tail := [7]uint64{4: (n - 4) * (n - 5), 5: n - 5, 6: 1}
	add := func(w uint64, k, pt, bt int, pd, bd bool) {
		w *= tail[k]
		x.Outcomes[pt][bt][b2i(pd)][b2i(bd)] += w
		switch {
		case pt > bt:
			x.Player += w
		case bt > pt:
			x.Banker += w
		default:
			x.Tie += w
		}
	}
	for p1 := range 10 {
		w1 := v[p1]
		if w1 == 0 {
			continue
		}
		v[p1]--
		for b1 := range 10 {
			w2 := w1 * v[b1]
			if w2 == 0 {
				continue
			}
			v[b1]--
			for p2 := range 10 {
				w3 := w2 * v[p2]
				if w3 == 0 {
					continue
				}
				v[p2]--
				for b2 := range 10 {
					w4 := w3 * v[b2]
					if w4 == 0 {
						continue
					}
					v[b2]--
					coup(&v, w4, (p1+p2)%10, (b1+b2)%10, add)
					v[b2]++
				}
				v[p2]++
			}
			v[b1]++
		}
		v[p1]++
	}
	ranks := make([]int, len(c))
	copy(ranks, c[:])
	x.PairNum, x.BothPairs = pairCounts(ranks)
	x.PairDen = n * (n - 1)
	x.FourDen = n * (n - 1) * (n - 2) * (n - 3)
	return x, nil
}

// ExactCards is ExactOdds for a composition given card by card (the shoe's own record of what
// is left): the same figures, and the perfect pairs, which depend on the suits.
func ExactCards(cs card.Counts) (*Exact, error) {
	for i, k := range cs {
		if k < 0 || k > MaxDecks {
			return nil, fmt.Errorf("%w: %d of %s: impossible, no shoe holds so many", ErrComposition, k, card.FromIndex(i))
		}
	}
	x, err := ExactOdds(FromCounts(cs))
	if err != nil {
		return nil, err
	}
	x.Suited = true
	x.PerfectNum, x.BothPerfect = pairCounts(cs[:])
	return x, nil
}

// pairCounts counts, for groups of alike cards (a rank's cards, or one card's copies), the
// ordered two-card sequences that are a pair and the ordered four-card sequences (player,
// banker, player, banker) whose first and third, and second and fourth, are pairs.
func pairCounts(groups []int) (one, both uint64) {
	var sq, sum4 uint64
	for _, k := range groups {
		if k < 2 {
			continue
		}
		p := uint64(k) * uint64(k-1)
		one += p
		sq += p * p
		if k >= 4 {
			sum4 += p * uint64(k-2) * uint64(k-3)
		}
	}
	// Two pairs of different groups (one² − Σ p², every ordered pair of groups), or of one
	// group (k(k−1)(k−2)(k−3)).
	return one, one*one - sq + sum4
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// coup finishes a coup after the first four cards (weight w, two-card totals pt and bt) with the
// tableau of RULES.md §2, drawing third cards from v.
func coup(v *[10]uint64, w uint64, pt, bt int, add func(w uint64, k, pt, bt int, pd, bd bool)) {
	if Natural(pt) || Natural(bt) {
		add(w, 4, pt, bt, false, false)
		return
	}
	if PlayerAction(PuntoBanco, pt) == Stand {
		if BankerAction(PuntoBanco, bt, -1) == Stand {
			add(w, 4, pt, bt, false, false)
			return
		}
		for b3 := range 10 {
			if v[b3] > 0 {
				add(w*v[b3], 5, pt, (bt+b3)%10, false, true)
			}
		}
		return
	}
	for p3 := range 10 {
		w5 := w * v[p3]
		if w5 == 0 {
			continue
		}
		pf := (pt + p3) % 10
		if BankerAction(PuntoBanco, bt, p3) == Stand {
			add(w5, 5, pf, bt, true, false)
			continue
		}
		v[p3]--
		for b3 := range 10 {
			if v[b3] > 0 {
				add(w5*v[b3], 6, pf, (bt+b3)%10, true, true)
			}
		}
		v[p3]++
	}
}

// Value is a rank's baccarat value (RULES.md §2).
func Value(r card.Rank) int {
	if r >= card.Ten {
		return 0
	}
	return int(r)
}

func rat(num, den uint64) *big.Rat {
	return new(big.Rat).SetFrac(new(big.Int).SetUint64(num), new(big.Int).SetUint64(den))
}

// PBanker, PPlayer, PTie and PPair are the exact probabilities.
func (x *Exact) PBanker() *big.Rat { return rat(x.Banker, x.Sequences) }

// PPlayer is the exact probability that the player hand wins.
func (x *Exact) PPlayer() *big.Rat { return rat(x.Player, x.Sequences) }

// PTie is the exact probability of a tie.
func (x *Exact) PTie() *big.Rat { return rat(x.Tie, x.Sequences) }

// PPair is the exact probability that a hand's first two cards are a pair.
func (x *Exact) PPair() *big.Rat { return rat(x.PairNum, x.PairDen) }

// Edge is one bet's house edge: what the house keeps of each unit staked, on average, with
// pushes counted as bets settled at 0 (the convention of the published figures, gamemath.md §1.2).
type Edge struct {
	Bet  string   `json:"bet"`
	Pays string   `json:"pays"`
	Edge *big.Rat `json:"-"`
	// Percent is Edge × 100, rounded to 9 decimals, for people and JSON.
	Percent string `json:"percent"`
}
