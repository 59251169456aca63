// Package ledger keeps a progressive pool (games/progressive) durable: its state and every
// movement of money, in an SQLite database (modernc.org/sqlite, WAL, synchronous=FULL) that
// survives a restart or a power cut.
//
// Each round a table settles is applied once, in one transaction: the bets are keyed by table,
// round and seat, so that one bet can never feed or be paid from the pool twice. Settling the same
// round again (a table retrying after a lost reply) returns the recorded result and changes
// nothing; settling different bets under the same table and round is refused with ErrConflict.
// The random prizes are drawn inside that transaction, with crypto/rand, and recorded with the
// round, so a retry never draws again.
//
// The pool is shared by several tables (RULES.md §7), so it has its own database rather than a
// table's journal; every table's controller opens the same file and SQLite serializes them
// (BEGIN IMMEDIATE, a busy timeout).
package ledger
