// Package poker holds the poker engines of RULES.md §5–§6, each a games.Engine:
//
//   - against the house (House): caribbean-stud (the seeds' Arica Póker), draw-poker,
//     three-card-poker and go-poker, with the dealer's qualification, ties broken card by card,
//     the void rules for a wrong card count (seed 002) and settlement by configurable pay tables,
//     plus the progressive side bet of RULES.md §7 (games/progressive);
//   - between players (Circle): holdem, omaha-2-3, five-card-stud and seven-card-stud, with the
//     betting rounds, folds, all-ins, side pots, split pots (the odd cent to the first seat left
//     of the button) and the house's rake.
//
// Cards go to Place{Name: "box", Seat: s}, Place{Name: "dealer"} and Place{Name: "board"}; closed
// cards are dealt FaceDown and turned up through Step.Reveal; hold'em and the 2+3 game burn a card
// before each community street (NeedBurn). Hands are ranked by games/poker/hand.
//
// Options (games.Config.Options) are listed with each engine's constructor; an engine refuses a
// name it does not know.
package poker
