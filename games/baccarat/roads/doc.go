// Package roads computes the five roads of a baccarat scoreboard from a shoe's results: the bead
// plate, the big road, and the three roads derived from the big road (big eye boy, small road
// and cockroach pig), with the "what would the next mark be" prediction (问路, "ask the road")
// for each derived road. It is pure: no I/O, no clock; one Roads per shoe, fed one Coup at a
// time.
//
// The rules, as the scoreboards of Macau and Las Vegas draw them:
//
//   - The bead plate has every coup, ties included, six to a column, top to bottom.
//   - The big road has one mark per banker or player win; a streak of one side goes down a
//     column, and each new streak starts at the top of the next column. A tie is marked on the
//     win before it (its count on that mark); ties before the shoe's first win are marked on
//     the first win. A pair is marked on the mark of its coup, a tie's pair on the mark its tie
//     is on.
//   - A streak longer than the six rows, or one that meets an earlier streak's tail, turns right
//     along its row: the "dragon tail". That is drawing only. The big road that the derived
//     roads read is the logical one, where every streak is one column however it is drawn.
//   - A derived road with offset k (big eye boy 1, small road 2, cockroach pig 3) gives each
//     new big road mark, at logical column c and row r, a colour: at the top of a column (r =
//     0), red when columns c−1 and c−1−k are as long, blue otherwise; further down, red when
//     column c−k reaches row r, blue when it ends exactly at row r−1, red when it ends higher.
//     The road starts with the mark that first has a column to compare: the big road's mark at
//     column k, row 1, or at column k+1, row 0 when column k has one mark. Red means the shoe
//     repeats its pattern, blue that it breaks it; neither predicts a result.
//   - A derived road is drawn as the big road is: a run of one colour goes down a column, a
//     change of colour starts the next, and a run turns right past the sixth row.
//   - The prediction shows, for a banker and for a player win next, the mark each derived road
//     would add (or none, before that road starts). Ties change nothing on the derived roads.
package roads
