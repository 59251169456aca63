// Package ledger is a floor's progressive pools (games/progressive) kept in a real database: the
// pools' state and meters, every movement of money as an entry, and every booking of a table's
// events, exactly once. The same code runs on PostgreSQL (a floor: the server a casino already
// runs, with its backups and its standby) and on SQLite (modernc.org/sqlite, WAL,
// synchronous=FULL: the embedded default for one machine), through database/sql; Open chooses
// by the address (postgres://… or a file).
//
// A table sends three kinds of events (tablebus progressive.bet, progressive.hand, and its
// round.voided), each booked once: the booking is keyed by the table, the round and the kind,
// and the same event again (a replay, a re-publication after a reconnect, a second controller)
// returns what was recorded and changes nothing, while a different event under the same key is
// refused (ErrConflict). Each booking is one transaction that locks its pool's row first
// (SELECT … FOR UPDATE on PostgreSQL; SQLite's BEGIN IMMEDIATE locks the database), so that
// bookings of several controllers on one PostgreSQL serialize per pool; the random prizes are
// drawn inside it, with crypto/rand, and recorded with the round, so a retry never draws again.
//
// Money is integer cents. The entries of each account (main, each reserve, commission, house)
// add up to the state (Verify).
package ledger
