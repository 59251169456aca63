// Package terminal is the dealer terminal: the croupier's touch screen at the dealer's
// position, served by the table's daemon. A dealer signs in with an id and a PIN; the page
// shows what to do next (the engine's guidance in the dealer's language), the round's cards
// where they lie, totals, the shoe's progress to the stop card, and offers only what the table
// takes at that moment: bets within the table's limits, the decisions the rules allow the box
// in turn, a held card's entry by hand, a void, the shoe's steps.
//
// Every action becomes a command signed server-side with the signed-in person's own key (the
// page never holds one) and published on the table's command topic, where the daemon checks
// it as it checks one from `sabot command`; what a dealer alone may not do is signed with the
// key of the supervisor who approves it with their PIN.
package terminal
