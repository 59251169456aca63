// Package blackjack is the blackjack family of RULES.md §4: the blackjack engine with its four
// presets (classic, real21, retiro, enhc; seeds 001, 002, 004, 000), Challenge 21, the
// perfect-pairs side bet and the real21 promotional prizes.
//
// An Engine is a pure state machine (games.Engine): Begin takes the bets, Need says where the next
// card goes (a box and hand, or the dealer; the hole card face down where the preset deals one)
// or whose decision is awaited and which decisions the rules allow, Card and Decide feed it, and
// Outcome settles the round in integer cents. A card dealt where the rules allow none is a "card
// out of turn" *games.RuleError and changes nothing; a forbidden decision is a *games.RuleError
// naming the seat, the decision and the rule.
//
// Places (games.Place): {Name: "box", Seat: s, Hand: h} for a box's hand h (0 before any split),
// {Name: "dealer"} for the dealer (the hole card face down), and in Challenge 21 {Name: "round1"}
// … {Name: "round3"} for the dealer's draws of each round. Decision options are the RULES.md §8
// codes: H S D P R while a hand plays, I N or E N when insurance or even money is asked.
//
// Configuration: games.Config.Rules names the preset (classic when empty); games.Config.Options
// sets single rule parameters by name (OptionNames lists them: soft17=hit, surrender=none,
// max-hands=4, blackjack-pays=6:5, …); an error cites the table option when one set the rule.
// The engine implements games.Explainer, so a decision that was never asked (a split ace given
// another ace) is reported with the rule that finished the hand.
//
// Choices RULES.md leaves open, made here:
//
//   - Rounding: every fraction of a cent goes to the house. A 3:2 blackjack on an odd stake pays
//     floor(3·stake/2) (5 cents pays 7); a surrender returns floor(stake/2); insurance is
//     floor(bet/2) (not offered on a 1-cent bet).
//   - Split hands are numbered in their places at the table: splitting hand i puts the new hand
//     at i+1, and hands are played in that order.
//   - A card while a hand waits for its decision is a hit to that hand (the shoe cannot see where
//     the dealer lays a card), so a stand must be entered before the next hand's card.
//   - The dealer draws to 17 only while a live hand waits for the dealer's total. When only
//     blackjacks or insurance bets wait, a dealer without a hole card draws just the second card
//     (to see whether it is a blackjack); when nothing waits, the dealer draws nothing.
//   - "The original bet only" without a peek (an option; no preset): the box's first live hand
//     loses its original stake, every other live hand and every double is returned.
//   - Insurance is offered to a blackjack where even money is not (retiro); a real21 prize ends
//     the hand before any offer.
//   - Challenge 21: insurance and even money are asked once per round bet, in round order; the
//     dealer's rounds are the house hands "round1"… in the outcome, and cards for them go to
//     the places of those names.
package blackjack
