// Package sim is the fast blackjack simulator behind `sabot math blackjack`: one box playing
// basic strategy (package strategy) against shuffled shoes with a cut card, under any rule set of
// package blackjack, at millions of rounds per second per core.
//
// It is a second implementation of the rules of RULES.md §4, written for speed (no allocation
// per round, cards in a flat array, totals kept incrementally), and it is cross-checked against
// the engine: the tests play many random rounds through both, with the same cards and the same
// decisions, and require the same net to the cent and the same number of cards used. PlayRound is
// the entry point for that check.
//
// Shuffling here uses a fast non-cryptographic generator seeded by the caller: this is analysis,
// not a table (the table's shuffle is the shuffler's job, RULES.md §1). Money is integer: a round's
// net is counted in Unit steps of the initial bet (twice the blackjack payout's denominator, so a
// 3:2 blackjack and a half-bet surrender are whole), and only the reported figures are floats.
package sim
