// Package baccarat is the baccarat family of RULES.md §2: punto banco (`punto-banco`), baccarat
// (`baccarat`: punto banco without the tie bet) and chemin de fer (`chemin-de-fer`), as pure
// engines driven by card events (games.Engine), plus the exact game math of the family
// (Exact: every bet's probability and house edge by full enumeration of a shoe composition).
//
// The engine says where every card goes in the deal order of RULES.md §2 (player, banker,
// player, banker, then the player's third card, then the banker's), tells the dealer in words
// what the tableau says after each card ("player draws", "banker stands on 6", "player wins 7
// to 5"), and refuses a card the tableau does not allow with a *games.RuleError built by
// games.OutOfTurn ("dealer error: banker stands on 6"), leaving the coup unchanged: that refusal
// is the alarm surveillance wants.
//
// Money is integer cents. The banker's 5% commission is taken on each winning banker bet
// separately and rounded down to the cent (Commission), so a player is never charged more than
// the posted 5%. The pay tables (OptPayTable: standard, EZ Baccarat, Super 6) and the side bets
// (OptSideBets: Dragon 7, Panda 8, Lucky 6, Dragon Bonus, Either Pair, Perfect Pair) are PayOf,
// the one settlement the engine pays with and the exact math prices (Exact.Odds); a win that is
// not a whole number of cents is rounded up to the cent (Pay.Net).
//
// Squeeze baccarat (OptSqueeze) deals each hand's cards face down to its largest bettor and waits,
// after the first four cards and after each third card, for that seat's decision "reveal" of
// each card, the player's first; the tableau reads the cards the shoe read, and the dealer's
// guidance says nothing of them until they are up.
//
// Chemin de fer keeps its bank across coups (Bank): the banker's seat and amount, "banco", the
// bank passing when the banker hand loses, a banker withdrawing, the rotation and the auction of
// seed 000. Engine.Manage applies those between coups; Outcome.Detail publishes the bank.
package baccarat
