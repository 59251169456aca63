// Package shuffler drives an electromechanical card shuffler over a serial line (go.bug.st/serial)
// with a binary, CRC-checked, acknowledged frame protocol, and reports the device's asynchronous
// events (jam, door open, misfeed, card count mismatch, shuffle done).
//
// The shuffler reads every card it is given (RULES.md §1 "Deck verification": LoadVerify, Count)
// and shuffles with its own mechanism (RULES.md §1 "Shuffle"). Its order report is a secret that
// never leaves the daemon: nothing in this package logs or prints it.
//
// # Line
//
// 8 data bits, no parity, 1 stop bit; 38400 baud unless Opts.Baud says otherwise.
//
// # Frame
//
// Every message in either direction is one frame:
//
//	offset  size  field
//	0       1     STX      0x02
//	1       2     LEN      big-endian: the number of bytes of SEQ, CMD and PAYLOAD (2 … 1026)
//	3       1     SEQ      sequence number (see below)
//	4       1     CMD      command, reply, event, ACK or NAK code
//	5       n     PAYLOAD  n = LEN-2 bytes, 0 … 1024; multi-byte numbers are big-endian
//	5+n     2     CRC      CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final
//	                       XOR; check value 0x29B1) over LEN, SEQ, CMD and PAYLOAD, big-endian
//	7+n     1     ETX      0x03
//
// The payload is not byte-stuffed: a receiver that finds a bad length, a bad CRC or no ETX drops
// the STX alone and scans for the next one, so a frame that begins inside garbage or inside a
// damaged frame is still found. A damaged length can claim up to 1026 bytes that never come, so a
// partial frame is also dropped the same way when a complete, valid frame follows it in the
// buffer (ErrCut), or when it stays incomplete through 150 ms of silence.
//
// Example, the host asking for the status with sequence number 1, byte by byte:
//
//	02     STX
//	00 02  LEN = 2: SEQ and CMD, no payload
//	01     SEQ = 1
//	01     CMD = STATUS
//	c9 b0  CRC-16/CCITT-FALSE of 00 02 01 01
//	03     ETX
//
// and the device acknowledging it (SEQ echoes the frame acknowledged):
//
//	02 00 02 01 f0 36 8e 03   ACK of SEQ 1
//
// A SHUFFLE of an 8-deck batch without the order report, sequence number 5:
//
//	02     STX
//	00 07  LEN = 7
//	05     SEQ = 5
//	04     CMD = SHUFFLE
//	08     decks = 8
//	00     mode = batch (1 = one deck per round, 2 = hand forming)
//	00     hands (hand forming only)
//	00     cards per hand (hand forming only)
//	00     flags: bit 0 = report the order
//	a2 41  CRC
//	03     ETX
//
// and, when the 416 cards are done, the device's reply (its own sequence number 9):
//
//	02 00 05 09 84   STX, LEN = 5, SEQ = 9, CMD = SHUFFLE reply (0x04 | 0x80)
//	05               the host sequence number this answers
//	01 a0            416 cards shuffled (no order: it was not asked for)
//	60 51 03         CRC, ETX
//
// # Acknowledgement and retransmission
//
// Each side numbers the frames it originates with its own SEQ. Every frame except ACK and NAK is
// acknowledged by the receiver at once with ACK (0xF0, no payload) or NAK (0xF1, one reason byte:
// 1 bad CRC or end byte, 3 unknown command, 4 bad payload; 2 is reserved), whose SEQ is the SEQ
// of the frame answered (as read, for a damaged frame). A frame whose length is out of range is
// not NAKed: it is most likely an 0x02 inside garbage. The sender keeps one frame outstanding: it
// sends again after a NAK for reason 1 or after 250 ms without an answer, up to 3 times, and then
// gives up: the host's command fails with ErrNoAnswer (also a LinkError event) and the daemon
// holds the round. NAK reasons 3 and 4 are final (ErrNak).
//
// A receiver remembers the last frame it accepted; a frame with the same SEQ, code and payload is
// a retransmission: it is acknowledged again and not acted on twice. The device keeps its reply
// to the last command, and answers a repeated command with that reply (or, while the command
// still runs, with its reply when it finishes): a command is never run twice, and a reply lost
// with the link is recovered by sending the command again, which the driver does when the port
// comes back. SYNC (SEQ 0, sent by Open) resets both sides' memories and clears a halt; other
// commands use SEQ 1 … 255, wrapping to 1.
//
// # Commands (host → device) and their replies (device → host)
//
// A reply's code is the command's code with bit 7 set; its payload begins with the SEQ of the
// command it answers. A command that fails gets ERROR (0xEE) instead: host SEQ, the command's
// code, an error code (1 busy, 2 door open, 3 jam, 4 misfeed, 5 card count mismatch, 6 input tray
// empty, 7 bad program, 8 halted, 9 sensor failure), then ASCII text.
//
//	0x00 SYNC        → 0x80: nothing more
//	0x01 STATUS      → 0x81: state (0 idle, 1 busy, 2 fault, 3 halted), flags (bit 0 door open,
//	                   bit 1 jammed), input tray cards (u16), output tray cards (u16), fault code,
//	                   shuffles since manufacture (u32), serial number and firmware (each a length
//	                   byte and ASCII)
//	0x02 SELFTEST    → 0x82: result code (0 = pass), ASCII text
//	0x03 LOADVERIFY  → 0x83: 52 counts (u16 each, in card order As Ah Ad Ac 2s … Kc), then the
//	                   number of cards it could not read (u16)
//	0x04 SHUFFLE     → 0x84: cards put out (u16), then, if asked and supported, one byte per card in
//	                   output order (1 … 52 = As Ah Ad Ac 2s … Kc; the driver rejects a report with
//	                   any other byte)
//	0x05 UNLOAD      → 0x85: cards returned to the output tray (u16)
//	0x06 HALT        → 0x86: nothing more; motors stop, the device refuses work until SYNC
//	0x07 COUNT       → 0x87: as LOADVERIFY, without keeping it as the verified load
//
// # Events (device → host, unsolicited, acknowledged like any frame)
//
//	0x40 SHUFFLE DONE    cards shuffled (u16)
//	0x41 JAM             cards processed when it jammed (u16)
//	0x42 DOOR OPEN
//	0x43 DOOR CLOSED
//	0x44 MISFEED         cards processed when it misfed (u16)
//	0x45 COUNT MISMATCH  cards expected (u16), cards counted (u16)
//
// The driver adds its own link events to Events: LinkDown when the port vanishes (it reopens it
// with backoff, 50 ms doubling to 2 s), LinkUp when it is back, LinkError for garbage, a damaged
// frame or a frame that makes no sense. Each is also logged.
//
// This protocol is Sabot's: no shuffler vendor publishes one (research/regulatory.md §2.5). A
// bridge in front of a real machine, or the machine's firmware, speaks it.
package shuffler
