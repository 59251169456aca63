// Package readershoetest is a simulated card-reading shoe on a real pseudo-terminal: the real
// driver (readershoe.Open) opens Port() through go.bug.st/serial and reads the same ASCII lines a
// Bee-Tek-style shoe writes. The physical side: Load a stack of cards with the cut card (Stack),
// Draw slides out the next one, SetBurnMode switches the panel to Manual Burn Cards, Remaining,
// Drawn, and Unload (the cards left behind the cut card taken out by hand at the end of a shoe).
// Fault injection: NotRead (a card that is not read: <Game>), Stick (a card that sticks), Alarm,
// Warning, WriteRaw (garbage), SetLineFaults (corrupted and dropped bytes), Unplug and Plug.
package readershoetest
