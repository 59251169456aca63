// Package shoe is a table's shoe: the rules of RULES.md §1 (deck verification on load, the
// shuffle, the player's cut, the stop card, the burns, every card out of the shoe accounted
// for) as a pure state machine, and the loop that feeds it.
//
// Machine is synchronous and does no I/O: Step takes one Input (a card read, a cut, bets, a
// device fault), each carrying its own time, and returns the tablebus events to journal and
// publish, in order, or an error wrapping ErrRefused that changes nothing. The game is a
// games.Engine the machine deals into: the engine says which card goes where next, the machine
// says whether the shoe can give it. A card that breaks a rule is a fault event, which holds the
// table until a person resolves it when a round is at stake; it is never guessed at.
//
// Loop runs a Machine for the daemon: it takes inputs one at a time from the devices and the
// bus (Do), drives the shuffler through the Shuffler interface the shoe declares, and hands
// each step's events and the input that produced them to a Sink, which journals them before
// they are published. Restore and Replay rebuild a machine from the journal after a restart,
// checking every event byte for byte, so that a restarted table stands exactly where it stood.
//
// Package shoetest simulates the dealer, the bettors and whole shoes around a Machine without
// devices.
package shoe
