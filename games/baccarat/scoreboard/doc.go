// Package scoreboard keeps a baccarat shoe's scoreboard: the bead plate (every coup in order, six
// to a column) and the big road (streaks of banker or player wins, one column a streak, ties
// marked on the last win), as data that marshals to JSON for players' displays and surveillance.
//
// It is fed one Coup per completed coup (FromOutcome reads one from a games.Outcome of the
// baccarat family) and cleared at each new shoe. It does no I/O.
package scoreboard
