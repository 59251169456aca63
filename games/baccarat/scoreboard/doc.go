// Package scoreboard feeds a baccarat shoe's roads (package roads: the bead plate, the big road,
// big eye boy, small road, cockroach pig and their prediction) from the baccarat engines'
// outcomes: FromOutcome reads the Coup of a games.Outcome of the family, and Board is the roads
// of one shoe, cleared at each new shoe. It does no I/O.
package scoreboard
