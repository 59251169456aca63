// Package strategy generates blackjack basic strategy for any rule set of package blackjack and
// shoe size, and plays it.
//
// Generate computes, for every dealer up card and every two-card starting hand, the expected
// value of standing, hitting, doubling, splitting and surrendering against a finite shoe with the
// cards already seen removed (composition-dependent hit and stand values, the dealer's outcome
// probabilities drawn without replacement, hitting or standing on soft 17 as the rules say).
// Those values are summed over the hands of each total, weighted by their probability, to give a
// total-dependent strategy: the form of the published charts (research gamemath.md §5.4), which
// the tests compare cell by cell.
//
// Rules without a peek are handled by weighing each action's loss to a dealer blackjack (the whole
// stake, doubles and splits included, where the dealer's blackjack takes every bet); surrender
// without a peek is an early surrender. Split values are the usual approximation: each split hand
// is played from one pair card with the other removed from the shoe, resplits as further splits
// of the same value while the box may hold more hands. Insurance and even money are always
// declined (they cost the player with a basic-strategy count), and the real21 prizes are not
// chased.
package strategy
