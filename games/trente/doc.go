// Package trente is trente et quarante (`trente-et-quarante`, RULES.md §3; seed 000 "Treinta y
// Cuarenta"): a pure engine driven by card events (games.Engine), and the game's exact math
// (Exact: the joint distribution of the two rows' totals by enumeration of every way the rows can
// be dealt from a shoe composition).
//
// Cards go to the NOIR row until its total (A = 1, 2–10 pip, court cards 10) reaches 31 or more,
// then to the ROUGE row likewise; the lower total wins. The four even-money chances are rouge,
// noir, couleur (the first card of the noir row has the winning row's colour) and inverse. A tie
// at 32–40 is a refait: every bet pushes. A tie at 31 costs every bet half its stake, or, with
// the option tie31=prison, puts every bet in prison until the next decided coup frees it (the
// chance wins) or takes it (the chance loses).
//
// Money is integer cents: half of an odd stake is rounded down, in the player's favour.
package trente
