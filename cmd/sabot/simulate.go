package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/shoetest"
	"github.com/sabot-tables/sabot/tablebus"
)

func init() {
	addCommand(command{name: "simulate", summary: "play whole simulated shoes and print the event stream (deterministic for a seed)", run: runSimulate})
}

// simStart is the simulated clock's start, so that a seed always gives the same bytes.
var simStart = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func runSimulate(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("simulate", "--game GAME [--shoes N] [--seed S] [--json]", stderr)
	game := fs.String("game", "punto-banco", "game id (sabot games list)")
	rules := fs.String("rules", "", "rule preset (default: the game's)")
	shoes := fs.Int("shoes", 1, "number of shoes")
	seed := fs.Uint64("seed", 1, "random seed: the same seed gives the same stream")
	asJSON := fs.Bool("json", false, "print the secure feed's JSON payloads, one per line")
	table := fs.String("table", "T1", "table id")
	misread := fs.Int("misread-every", 0, "make every n-th card unreadable (exercises the hold and manual entry)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *shoes < 1 {
		return fmt.Errorf("simulate: --shoes must be at least 1")
	}
	if err := tablebus.ValidTable(*table); err != nil {
		return fmt.Errorf("simulate: %w", err)
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	var seq uint64
	emit := func(e tablebus.Event) error {
		seq++
		e.V, e.Seq, e.Table, e.Source, e.Session = tablebus.SchemaVersion, seq, *table, tablebus.SourceTable, 1
		if *asJSON {
			b, err := e.Marshal()
			if err != nil {
				return err
			}
			w.Write(b)
			w.WriteByte('\n')
			return nil
		}
		if s := tablebus.Describe(e); s != "" {
			fmt.Fprintf(w, "%s  #%-6d %s\n", e.TS.Format("15:04:05.0"), e.Seq, s)
		}
		return nil
	}
	tb, err := newSimTable(*game, *rules, *table, *seed)
	if err != nil {
		return fmt.Errorf("simulate: %w", err)
	}
	tb.MisreadEvery = *misread
	tb.Emit = emit
	if err := tb.RunShoes(*shoes, *shoes*100000); err != nil {
		return fmt.Errorf("simulate: %w", err)
	}
	return ctx.Err()
}

// newSimTable builds an in-memory simulated table for a game.
func newSimTable(game, rules, table string, seed uint64) (*shoetest.Table, error) {
	ent, err := catalog.Lookup(game)
	if err != nil {
		return nil, err
	}
	fam, err := shoe.ParseFamily(ent.Family)
	if err != nil {
		return nil, err
	}
	proc, err := shoe.ProcedureFor(fam, 0)
	if err != nil {
		return nil, err
	}
	eng, err := catalog.New(games.Config{Game: game, Rules: rules})
	if err != nil {
		return nil, err
	}
	m, err := shoe.NewMachine(shoe.Config{Proc: proc, Engine: eng, Table: table, Manage: catalog.Manage})
	if err != nil {
		return nil, err
	}
	return shoetest.NewTable(m, shoetest.NewDealer(game, proc, seed), simStart), nil
}
