// Package readershoe drives a dealing shoe with its own card reader over RS-232: the shoe family
// whose public protocol is the Bee-Tek ASCII lines recovered in research/regulatory.md §2.6.
//
// # Line
//
// 9600 baud, 8 data bits, no parity, 1 stop bit; one-way, shoe → host; ASCII lines ending in
// CR LF, each frame with a leading and a trailing space. There is no checksum, sequence number or
// timestamp: the driver numbers the reads (Read.Seq) and stamps them (Read.At).
//
// # Frames
//
//	[Game]<Card:4S>                 a card dealt: rank 2-9, T or 10, J, Q, K, A; suit C D H S
//	[Manual Burn Cards]<Card:4S>    a card burned (the shoe's panel is in Manual Burn Cards mode)
//	[Game]<Game>                    a card left the shoe unread (also in burn mode)
//	[Game]<Alarm:E3 Card Not Read>  an alarm: a code, a space, text
//	[GameAlarm]<Alarm:…>            an alarm, other mode
//	<W0x01>                         a warning, two hex digits (meanings undocumented)
//	[Game]<Cut Card>                the cut card left the shoe: a Sabot extension (below)
//
// Cards are written rank first, upper case. One source shows a suit-first form (<Card:H3>) in
// burn mode; it is unconfirmed on hardware, so it is Malformed here, never guessed.
//
// # Sabot extension: the cut card
//
// The public protocol has no frame for the cut card. A shoe (or a bridge) that can tell the cut
// card sends, when it leaves the shoe, the line
//
//	[Game]<Cut Card> CR LF
//
// (with [Manual Burn Cards] in burn mode). It counts as a draw: RULES.md §1 "Counting" accounts for
// every card that leaves the shoe, the cut card included. A shoe that does not send it leaves the
// cut card to the camera or to the dealer's button.
//
// # Malformed lines and noise
//
// Without a checksum, strictness is the only defence: every frame must be exactly one of the forms
// above, in printable ASCII. Anything else is a Malformed read carrying the raw bytes and the
// reason, logged as an error: it is never turned into a card, and it stands for one draw whose
// card is unknown, so the round is held until the dealer enters the card (RULES.md §1 "Misread").
//
// Noise on RS-232 shows as bytes outside printable ASCII (Linux delivers a byte with a framing
// error as NUL), lost bytes, and, rarely, a stray CR or LF. The driver keeps one damaged card line
// to one read:
//
//   - CR, LF and every non-printable byte cut a line into pieces, each parsed on its own: a piece
//     that is exactly a frame came through whole; neighbouring pieces that are not frames are one
//     damaged stretch, one Malformed read (one per "[G" or "[M" mode start in it, when noise ate
//     the line ending between two frames).
//   - A stretch with fewer than MinFrame (7) visible characters cannot have been a card's line (a
//     card line has 15): it is a Noise read, not a draw (the damaged tail of a line ending).
//   - A damaged line followed within Opts.JoinWindow (30 ms) by a piece that starts no frame is one
//     line cut by a stray line ending: one Malformed read. A dealer never draws two cards that
//     close together.
//   - A line that loses its CR LF is taken as ended after Opts.LineIdle (250 ms) of silence.
//
// Measured over 1000 simulated 8-deck shoes at 1% of bytes damaged (BenchmarkShoeUnderNoise):
// framing errors and lost bytes give about 58 Malformed reads a shoe (cards entered by hand) and no
// wrong, lost or doubled card. What strictness cannot catch is noise that turns one valid
// character into another (a '4' into a '5': one bit): with 1% of bytes replaced by random bytes,
// about 0.22 cards a shoe come out wrong. On a line without parity or checksum no parser can see
// that; the cross-checks above the driver (the shoe's composition, the camera) must.
//
// # Link
//
// When the port vanishes (a USB adapter pulled), the driver returns what it had of a line as a
// Malformed read wrapping ErrCutByLink (a card in flight is raised, never dropped), then a
// LinkDown read, reopens the port with backoff (50 ms doubling to 2 s) and returns LinkUp. Lines
// the shoe sent while the cable was out are lost: a LinkDown means cards may have left the shoe
// unseen, and the round must be held until the dealer confirms.
package readershoe
