package main

import (
	"context"
	"io"
)

// mathGames holds `sabot math GAME` for each game family; the family's file adds its entries
// (math_baccarat.go, math_blackjack.go, math_poker.go, …) in its init function.
var mathGames = map[string]func(context.Context, []string, io.Reader, io.Writer, io.Writer) error{}

func init() {
	addCommand(command{name: "math", summary: "math GAME: house edge, probabilities and PAR sheets", run: runMath})
}

func runMath(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return subcommand(ctx, "math", mathGames, args, stdin, stdout, stderr)
}
