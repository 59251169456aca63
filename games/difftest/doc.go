// Package difftest holds the games' differential and metamorphic tests (issue 16). It has no code
// outside its tests.
//
// The differential test plays random rounds of every game and rule preset of games/catalog
// through the engines, by the `sabot games round` contract (RULES.md §8), and through a second
// settlement written in the tests from RULES.md and the seeds alone: its own card values, hand
// totals, baccarat tableau, poker hand ranking, deal order, legal decisions, pots and pay tables.
// It shares no settlement, evaluation or payout code with the engines (it imports only the
// contract types and the catalog), and every bet's net (and stake) must agree to the cent.
//
// The metamorphic tests ask the engines alone what no single round can show: a side bet's result
// depends only on the cards its rule names, whatever the decisions after the deal and whatever
// the other cards.
//
//	go test ./games/difftest                 # the CI run: 20,000 rounds of each game and preset
//	go test ./games/difftest -long           # ten times as many
//	go test ./games/difftest -rounds 5000 -seed 7  # any number, another seed
package difftest
