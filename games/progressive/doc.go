// Package progressive is the progressive jackpot of RULES.md §7 (seed 000 "Pozos Progresivos",
// seed 002 "DEL JUEGO PROGRESIVO"): a voluntary side bet on Caribbean stud, draw poker or Go
// poker, paid by the player's hand alone, from pools that several tables may share.
//
// This package is the pure pool logic: a Config (the house commission, the main pool and its
// non-zero base, the reserve pools, the prize table, the random prizes), a State (what each pool
// holds), and Settle, which applies one table round (its progressive bets, the hands they hold,
// and any random prize drawn for it) to a State and says who is paid what and from where. It does
// no I/O and reads no clock; Draw, the random prizes "carta mágica" and "jugador afortunado",
// reads the randomness it is given (crypto/rand.Reader in production).
//
// The durable ledger that keeps a pool across restarts and never applies a bet twice is
// games/progressive/ledger.
//
// Money is integer cents. A prize that is a percentage of the pool is rounded down to the cent;
// what the rounding leaves stays in the pool.
package progressive
