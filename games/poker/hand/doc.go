// Package hand ranks poker hands: five, six and seven cards (the best five), the Omaha-style
// "2+3" hand of RULES.md §6 (exactly two hole cards and three community cards), and the
// three-card hands of three card poker (RULES.md §5).
//
// A Rank orders every hand: a higher Rank is a better hand, equal Ranks are an exact tie (RULES.md
// §5: ties are broken card by card, "se desempata con la carta mayor sucesiva", which the Rank
// already encodes). A Rank also names its Category ("full house") and the ranks that break ties.
//
// The evaluator keeps its own packed encoding, a Mask of up to 52 bits (one 16-bit lane per
// suit), converting from card.Card at its API. Seven cards are ranked without enumerating the 21
// five-card subsets: the rank multiset is read from the four suit lanes with bit operations
// (ranks held at least twice, three times, four times), flushes are found by a SWAR population
// count of the lanes, and two small tables (8,192 entries each, about 40 KB together) give the
// top ranks and the straight of a 13-bit rank set. The tables stay in the first-level caches, so
// random hands cost the same as hands enumerated in order.
package hand
