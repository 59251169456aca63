package hand

import (
	"fmt"

	"github.com/sabot-tables/sabot/shoe/card"
)

// EvalOmaha ranks the best hand made of exactly two of the hole cards and exactly three of the
// community cards (RULES.md §6 omaha-2-3; seed 000: "escogiendo 2 de sus cartas individuales y 3
// de las cartas comunitarias"). It takes two to four hole cards and three to five community
// cards, all distinct; anything else is an error wrapping ErrCards.
func EvalOmaha(hole, board []card.Card) (Rank, error) {
	hm, err := check(hole, 2, 4)
	if err != nil {
		return 0, fmt.Errorf("hole cards: %w", err)
	}
	bm, err := check(board, 3, 5)
	if err != nil {
		return 0, fmt.Errorf("community cards: %w", err)
	}
	if hm&bm != 0 {
		return 0, fmt.Errorf("%w: %s is both a hole card and a community card", ErrCards, (hm & bm).Cards()[0])
	}
	return omaha(hole, board), nil
}

// omaha is EvalOmaha without the checks.
func omaha(hole, board []card.Card) Rank {
	var best Rank
	for a := 0; a < len(hole); a++ {
		for b := a + 1; b < len(hole); b++ {
			pair := cardBit[hole[a]] | cardBit[hole[b]]
			for c := 0; c < len(board); c++ {
				for d := c + 1; d < len(board); d++ {
					for e := d + 1; e < len(board); e++ {
						if r := EvalMask(pair | cardBit[board[c]] | cardBit[board[d]] | cardBit[board[e]]); r > best {
							best = r
						}
					}
				}
			}
		}
	}
	return best
}

// BestOmaha returns the five cards (two hole, three community) that make EvalOmaha's hand, in
// display order, and its Rank.
func BestOmaha(hole, board []card.Card) ([]card.Card, Rank, error) {
	r, err := EvalOmaha(hole, board)
	if err != nil {
		return nil, 0, err
	}
	for a := 0; a < len(hole); a++ {
		for b := a + 1; b < len(hole); b++ {
			for c := 0; c < len(board); c++ {
				for d := c + 1; d < len(board); d++ {
					for e := d + 1; e < len(board); e++ {
						five := [5]card.Card{hole[a], hole[b], board[c], board[d], board[e]}
						if Eval5(&five) == r {
							return displayOrder(five[:], r), r, nil
						}
					}
				}
			}
		}
	}
	return nil, 0, ErrCards // unreachable
}
