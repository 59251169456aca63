package trente

import (
	"errors"
	"fmt"
)

// Composition is a shoe by trente et quarante value: index 1…10 holds how many cards of that
// value there are (index 10: tens and court cards together); index 0 is unused.
type Composition [11]int

// Decks returns n full decks: four of each value 1–9 and sixteen tens and courts per deck.
func Decks(n int) Composition {
	var c Composition
	for v := 1; v <= 9; v++ {
		c[v] = 4 * n
	}
	c[10] = 16 * n
	return c
}

// Total returns the number of cards.
func (c Composition) Total() int {
	t := 0
	for _, n := range c[1:] {
		t += n
	}
	return t
}

// ErrComposition is wrapped by ExactOdds for a composition it refuses.
var ErrComposition = errors.New("trente: composition")

// Exact is the joint distribution of the two rows' totals of one coup dealt from a composition.
type Exact struct {
	Composition Composition `json:"composition"`
	// Joint[a][b] is the probability that the noir row totals 31+a and the rouge row 31+b.
	Joint [10][10]float64 `json:"joint"`
}

// ExactOdds computes the joint distribution of the row totals by enumerating every way a coup
// can be dealt: for each pair of last cards, every split of every value between the noir row's
// cards before its last one and the rouge row's, grouped by the rows' running totals and lengths.
// A coup whose noir row holds the multiset q1 before its last card l1, and whose rouge row holds
// q2 before l2, is dealt by j1!·j2!/∏q1ᵥ!q2ᵥ! orders of those values, each with probability
// ∏(cᵥ)ₐᵥ/(n)ₖ, aᵥ the cards of value v used, k = j1+j2+2 the cards dealt; every order is valid,
// since a row's total before its last card is at most 30 whatever the order. The sums are
// carried out in float64 (every term positive: the relative error stays near 1e-13), not by
// simulation.
func ExactOdds(c Composition) (*Exact, error) {
	n := c.Total()
	for v := 1; v <= 10; v++ {
		if c[v] < 0 {
			return nil, fmt.Errorf("%w: %d cards of value %d: a count cannot be negative", ErrComposition, c[v], v)
		}
	}
	if c[0] != 0 {
		return nil, fmt.Errorf("%w: value 0 does not exist", ErrComposition)
	}
	if n > 8*52 {
		return nil, fmt.Errorf("%w: %d cards: more than eight decks", ErrComposition, n)
	}
	// A coup needs both rows complete: check that the shoe can always deal one (80 points).
	pts := 0
	for v := 1; v <= 10; v++ {
		pts += v * c[v]
	}
	if pts < 2*Target+40 {
		return nil, fmt.Errorf("%w: %d points left: a coup may need 80", ErrComposition, pts)
	}
	const S = Target - 1 // a row's total before its last card: 0…30
	// A state is a (total, length) pair of each row before its last card; length ≤ total.
	idx := func(s, j int) int { return s*(s+1)/2 + j }
	const side = (S + 1) * (S + 2) / 2
	var fact [2*S + 3]float64
	fact[0] = 1
	for i := 1; i < len(fact); i++ {
		fact[i] = fact[i-1] * float64(i)
	}
	// ff[v][a] = (c_v)_a, the falling factorial.
	var ff [11][2*S + 3]float64
	for v := 1; v <= 10; v++ {
		ff[v][0] = 1
		for a := 1; a < len(ff[v]); a++ {
			ff[v][a] = ff[v][a-1] * float64(c[v]-a+1)
			if ff[v][a] < 0 {
				ff[v][a] = 0
			}
		}
	}
	// fall[k] = 1/(n)_k.
	var fall [2*S + 5]float64
	fall[0] = 1
	for k := 1; k < len(fall); k++ {
		if n-k+1 > 0 {
			fall[k] = fall[k-1] / float64(n-k+1)
		}
	}
	cur := make([]float64, side*side)
	nxt := make([]float64, side*side)
	// live marks the noir states (rows of cur) that hold any weight.
	live, liveNext := make([]bool, side), make([]bool, side)
	x := &Exact{Composition: c}
	for l1 := 1; l1 <= 10; l1++ {
		// Swapping the two rows of a deal gives a deal (the rouge row's cards before its
		// last one total at most 30 too) with the same probability: the pair of last cards
		// (l2, l1) gives the transpose of (l1, l2), so l2 < l1 is not enumerated.
		for l2 := l1; l2 <= 10; l2++ {
			if ff[l1][1] == 0 || ff[l2][1] == 0 || l1 == l2 && ff[l1][2] == 0 {
				continue
			}
			clear(cur)
			clear(live)
			cur[0], live[0] = 1, true
			for v := 1; v <= 10; v++ {
				e := 0
				if v == l1 {
					e++
				}
				if v == l2 {
					e++
				}
				// g[q1][q2]: the weight of q1 cards of value v in the noir row before its
				// last card and q2 in the rouge row's, the last cards' e included.
				var g [S + 1][S + 1]float64
				for q1 := 0; v*q1 <= S; q1++ {
					for q2 := 0; v*q2 <= S; q2++ {
						g[q1][q2] = ff[v][q1+q2+e] / (fact[q1] * fact[q2])
					}
				}
				clear(nxt)
				clear(liveNext)
				for s1 := 0; s1 <= S; s1++ {
					for j1 := 0; j1 <= s1; j1++ {
						if !live[idx(s1, j1)] {
							continue
						}
						row := cur[idx(s1, j1)*side : (idx(s1, j1)+1)*side]
						for s2 := 0; s2 <= S; s2++ {
							for j2 := 0; j2 <= s2; j2++ {
								w := row[idx(s2, j2)]
								if w == 0 {
									continue
								}
								for q1 := 0; s1+v*q1 <= S; q1++ {
									gq := &g[q1]
									if gq[0] == 0 {
										break
									}
									o := idx(s1+v*q1, j1+q1)
									liveNext[o] = true
									out := nxt[o*side : (o+1)*side]
									for q2, t := 0, s2; t <= S; q2, t = q2+1, t+v {
										out[t*(t+1)/2+j2+q2] += w * gq[q2]
									}
								}
							}
						}
					}
				}
				cur, nxt = nxt, cur
				live, liveNext = liveNext, live
			}
			// The rows end on their last cards: noir at s1+l1 ≥ 31, rouge at s2+l2 ≥ 31.
			for s1 := max(0, Target-l1); s1 <= S; s1++ {
				for j1 := 0; j1 <= s1; j1++ {
					row := cur[idx(s1, j1)*side:]
					for s2 := max(0, Target-l2); s2 <= S; s2++ {
						for j2 := 0; j2 <= s2; j2++ {
							w := row[idx(s2, j2)]
							if w == 0 {
								continue
							}
							p := w * fact[j1] * fact[j2] * fall[j1+j2+2]
							x.Joint[s1+l1-Target][s2+l2-Target] += p
							if l1 != l2 {
								x.Joint[s2+l2-Target][s1+l1-Target] += p
							}
						}
					}
				}
			}
		}
	}
	return x, nil
}

// Figures are the chances' probabilities and house edges from the joint distribution.
type Figures struct {
	Noir     float64 `json:"p_noir"`     // the noir row wins (lower total)
	Rouge    float64 `json:"p_rouge"`    // the rouge row wins
	Refait   float64 `json:"p_refait"`   // a tie at 32–40
	Refait31 float64 `json:"p_refait31"` // a tie at 31
	// Edges, per unit staked, with the half loss on 31–31 (RULES.md §3 default). Couleur and
	// inverse each win half the decided coups from a shoe with as many red as black cards of
	// every value (the first card's colour is then independent of every value dealt).
	EdgeNoir    float64 `json:"edge_noir"`
	EdgeRouge   float64 `json:"edge_rouge"`
	EdgeCouleur float64 `json:"edge_couleur"`
	EdgeInverse float64 `json:"edge_inverse"`
	// Row[t] is the probability that the noir row totals 31+t; RowRouge the same for rouge.
	Row      [10]float64 `json:"row_noir"`
	RowRouge [10]float64 `json:"row_rouge"`
	Sum      float64     `json:"sum"` // all outcomes together: 1 up to rounding
}

// Figures returns the chances' probabilities and house edges.
func (x *Exact) Figures() Figures {
	var f Figures
	for a := range 10 {
		for b := range 10 {
			p := x.Joint[a][b]
			f.Sum += p
			f.Row[a] += p
			f.RowRouge[b] += p
			switch {
			case a < b:
				f.Noir += p
			case b < a:
				f.Rouge += p
			case a == 0:
				f.Refait31 += p
			default:
				f.Refait += p
			}
		}
	}
	half := f.Refait31 / 2
	f.EdgeNoir = f.Rouge - f.Noir + half
	f.EdgeRouge = f.Noir - f.Rouge + half
	f.EdgeCouleur, f.EdgeInverse = half, half
	return f
}
