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
// five-card subsets: a SWAR population count of the four suit lanes finds a flush (then the
// flush suit's 13-bit rank set decides, through two 8,192-entry tables); any other hand is ranked
// by its rank multiset alone, looked up in a perfect-hash table built on first use (hash.go). The
// tables stay in the second-level cache, so random hands cost little more than hands in
// enumeration order. evalBits, which ranks a hand from the suit lanes with bit operations (ranks
// held at least twice, three times, four times), builds the tables; the tests compare both with a
// plain reference evaluator on every five-card and every seven-card hand.
package hand
