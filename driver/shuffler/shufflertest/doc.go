// Package shufflertest is a stateful simulated shuffler on a real pseudo-terminal: the real
// driver (shuffler.Open) opens Port() through go.bug.st/serial and speaks the real protocol to
// it. Its physical side is for the simulated dealer and for tests: Insert cards in the input
// tray, TakeOutput the shuffled pack; and for fault injection: Jam, Misfeed, LoseCard, OpenDoor,
// Mute (a device that never answers), Unplug and Plug (a cable pulled and plugged back), and
// byte faults on the line (SetLineFaults). A Seed makes a simulation deterministic.
package shufflertest
