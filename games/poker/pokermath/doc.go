// Package pokermath computes the house games' returns exactly (RULES.md §5), for `sabot math`:
//
//   - three card poker: every player hand against every dealer hand (22,100 × 18,424), the ante
//     and play wager with the best play of each hand and with the published Q-6-4 rule, and pair
//     plus (published: ante 3.37%, pair plus 2.32%, research/gamemath.md §3.2);
//   - Caribbean stud: every player hand, dealer up card and dealer hand, 19,933,230,517,200 deals,
//     with the best decision for each hand and up card (published: 5.224%, gamemath.md §3.1) and
//     the simpler published strategies. The dealer's four closed cards are counted, not dealt:
//     for each up card the dealer hands are sorted by rank once, and the hands that share a card
//     with the player's are taken off by inclusion–exclusion over the subsets of the player's
//     cards;
//   - Go poker: the pay table over the 2,598,960 five-card hands;
//   - draw poker: the dealer's opening rate only (the player's draws are not analysed).
//
// Returns are exact rationals printed as percentages; house edges are per ante.
package pokermath
