// Package camerashoe is the GPIO side of the camera shoe: the card-exit sensor, the lid switch,
// the dealer's three buttons and the status LED, through periph.io (periph.io/x/host/v3 drivers,
// periph.io/x/conn/v3/gpio pins). The shoe's camera frames come from the vision package's frame
// source; this package never touches gocv. The daemon pairs them: the frames taken between a
// CardEnter and its CardExit are one card for vision's multi-frame combiner.
//
// # Wiring (the defaults; Opts inverts each)
//
//	exit gate   input, no pull; high while a card blocks the beam
//	lid         input, no pull; high while the lid is open
//	confirm     input, pull-up; low while pressed (to ground)
//	manual      input, pull-up; low while pressed
//	void        input, pull-up; low while pressed
//	LED         output; high lights it
//
// # Events
//
// Every input is watched with WaitForEdge bounded by Opts.Poll (periph's backends disagree on what
// -1 and 0 mean), and decided on levels, not on edge counts:
//
//   - CardEnter when the beam is blocked; CardExit when it has stayed clear for Opts.Gap (15 ms),
//     so that a card edge that makes the beam flicker is one card, never two. CardExit is the draw;
//     its Dur is how long the card blocked the beam.
//   - CardStuck once when a card blocks the beam for Opts.StuckAfter (2 s): the round is held; the
//     card still counts when it clears.
//   - CardInGate at start when the beam is already blocked (a restart with a card in flight): the
//     card is raised, and counted when it clears: never lost, never doubled.
//   - LidOpen and LidClosed, and Confirm, Manual and Void on a press, each debounced (Opts.Debounce,
//     20 ms): contact bounce is one press; a blip shorter than that is none. A lid open at start is
//     reported at once.
//
// # Status LED
//
// SetLED: off, ready (steady), held (1 Hz blink: the dealer must act), fault (4 Hz blink).
//
// Halt stops watching, halts the input pins and turns the LED off. Timing is tested in a
// testing/synctest bubble with periph's gpiotest pins (camerashoetest).
package camerashoe
