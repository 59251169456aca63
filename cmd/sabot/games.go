package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
)

func init() {
	addCommand(command{name: "games", summary: "games round: play one round from JSON (RULES.md §8); games list", run: runGames})
}

func runGames(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return subcommand(ctx, "games", map[string]func(context.Context, []string, io.Reader, io.Writer, io.Writer) error{
		"round": gamesRound,
		"list":  gamesList,
	}, args, stdin, stdout, stderr)
}

// gamesRound reads one JSON round on stdin and writes one JSON outcome on stdout (RULES.md §8).
func gamesRound(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("games round", "< round.json", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	dec := json.NewDecoder(io.LimitReader(stdin, 1<<20))
	dec.DisallowUnknownFields()
	var in games.RoundInput
	if err := dec.Decode(&in); err != nil {
		return fmt.Errorf("games round: reading the round: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("games round: more than one JSON value on standard input")
	}
	out, err := catalog.PlayRound(in)
	if err != nil {
		return err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return fmt.Errorf("games round: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}

func gamesList(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("games list", "", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	for _, g := range catalog.Games() {
		e, _ := catalog.Lookup(g)
		fmt.Fprintf(stdout, "%-20s %-10s %d decks  %v\n", g, e.Family, e.Decks, e.Presets)
	}
	return nil
}
