// Package catalog knows every game engine by its RULES.md id and makes them. Each game family
// registers itself in a file of its own here (baccarat.go, blackjack.go, poker.go, …), so that the
// daemon, `sabot engine` and `sabot games round` can build any game by name.
package catalog

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sabot-tables/sabot/games"
)

// Entry describes one game.
type Entry struct {
	Game   string // RULES.md id
	Family string // "baccarat", "trente", "blackjack", "poker": the shoe procedure of RULES.md §1
	Decks  int    // default number of decks
	// Presets lists the rule presets, the default first; nil where the game has none.
	Presets []string
	New     func(games.Config) (games.Engine, error)
}

var entries = map[string]Entry{}

// register adds a game; called from the init functions of this package's files.
func register(e Entry) {
	if _, dup := entries[e.Game]; dup {
		panic("catalog: game registered twice: " + e.Game)
	}
	entries[e.Game] = e
}

// Lookup returns the entry of a game id.
func Lookup(game string) (Entry, error) {
	e, ok := entries[game]
	if !ok {
		return Entry{}, fmt.Errorf("unknown game %q (known: %s)", game, strings.Join(Games(), ", "))
	}
	return e, nil
}

// Games returns every known game id, sorted.
func Games() []string {
	out := make([]string, 0, len(entries))
	for g := range entries {
		out = append(out, g)
	}
	sort.Strings(out)
	return out
}

// New makes the engine for cfg.Game, filling the default deck count.
func New(cfg games.Config) (games.Engine, error) {
	e, err := Lookup(cfg.Game)
	if err != nil {
		return nil, err
	}
	if cfg.Decks == 0 {
		cfg.Decks = e.Decks
	}
	return e.New(cfg)
}

// Manage applies a between-rounds action from the dealer terminal to an engine that keeps state
// across rounds (the chemin de fer bank: "withdraw", "raise", "accept", "decline", "bid",
// "close"). It returns the state to publish. Engines without such state refuse every action.
func Manage(e games.Engine, a games.Action) (any, error) {
	for _, m := range managers {
		if detail, ok, err := m(e, a); ok {
			return detail, err
		}
	}
	return nil, &games.RuleError{Game: e.Game(), Seat: a.Seat, What: a.Action, Rule: "this game has no state to manage between rounds"}
}

// managers are the families' Manage adapters, added by their files.
var managers []func(games.Engine, games.Action) (any, bool, error)

// PlayRound runs `sabot games round` (RULES.md §8) on one input.
func PlayRound(in games.RoundInput) (*games.Outcome, error) {
	e, err := Lookup(in.Game)
	if err != nil {
		return nil, err
	}
	decks := in.Decks
	switch decks {
	case 0:
		decks = e.Decks
	case 1, 2, 4, 6, 8: // RULES.md §0
	default:
		return nil, fmt.Errorf("%s: %d decks: a shoe holds 1, 2, 4, 6 or 8 decks (RULES.md §0)", in.Game, decks)
	}
	eng, err := e.New(games.Config{Game: in.Game, Rules: in.Rules, Decks: decks, Limits: in.Limits, Options: in.Options})
	if err != nil {
		return nil, err
	}
	return games.PlayRound(eng, decks, in)
}
