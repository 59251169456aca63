package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
)

func init() {
	addCommand(command{name: "replay", summary: "replay a past shoe or round from a table's journal, read-only (disputes)", run: runReplay})
}

func runReplay(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("replay", "--journal FILE [--list | --shoe ID [--round N] [--verify] [--json] [--public]]", stderr)
	path := fs.String("journal", "", "the table's journal (sabotd --journal)")
	list := fs.Bool("list", false, "list the shoes in the journal")
	shoeID := fs.String("shoe", "", "the shoe to replay, e.g. T1-000012")
	round := fs.Uint64("round", 0, "only this round of the shoe")
	verify := fs.Bool("verify", false, "re-run the shoe's journaled inputs through the rules and check every event, byte for byte")
	rules := fs.String("rules", "", "the table's rule preset, for --verify (default: the game's)")
	asJSON := fs.Bool("json", false, "print the journaled payloads as they were published")
	public := fs.Bool("public", false, "show the public feed's version (face-down cards hidden)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *path == "" || (!*list && *shoeID == "") {
		fs.Usage()
		return errUsage
	}
	j, err := journal.OpenReadOnly(*path)
	if err != nil {
		return err
	}
	defer j.Close()
	if *list {
		shoes, err := j.Shoes(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "table %s: %d shoe(s)\n", j.Table(), len(shoes))
		for _, s := range shoes {
			first, last, _ := j.ShoeRange(ctx, s)
			var rounds int
			ended := "open"
			j.Range(ctx, first, last, func(r journal.Record) error {
				switch r.Type {
				case tablebus.RoundSettled, tablebus.RoundVoided:
					rounds++
				case tablebus.ShoeEnded:
					ended = "ended"
				}
				return nil
			})
			fmt.Fprintf(stdout, "  %s  events %d–%d  %d rounds  %s\n", s, first, last, rounds, ended)
		}
		return nil
	}
	first, last, err := j.ShoeRange(ctx, *shoeID)
	if err != nil {
		return err
	}
	shown := 0
	err = j.Range(ctx, first, last, func(r journal.Record) error {
		if r.Shoe != *shoeID || (*round != 0 && r.Round != *round) {
			return nil
		}
		payload := r.Secure
		if *public {
			payload = r.Public
		}
		shown++
		if *asJSON {
			_, err := fmt.Fprintf(stdout, "%s\n", payload)
			return err
		}
		e, err := tablebus.Decode(payload)
		if err != nil {
			return fmt.Errorf("replay: event %d: %w", r.Seq, err)
		}
		if s := tablebus.Describe(e); s != "" {
			fmt.Fprintf(stdout, "%s #%-6d %s\n", e.TS.Format("2006-01-02 15:04:05.000"), e.Seq, s)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if shown == 0 {
		return fmt.Errorf("replay: shoe %s has no round %d", *shoeID, *round)
	}
	if *verify {
		n, err := verifyShoe(ctx, j, *shoeID, *rules)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "verified: the rules, given the %d journaled inputs of shoe %s, produce its %d events byte for byte\n", n.inputs, *shoeID, n.events)
	}
	return nil
}

type verified struct{ inputs, events int }

// verifyShoe re-runs a shoe's journaled inputs through a fresh machine and engine.
func verifyShoe(ctx context.Context, j *journal.Journal, id, rules string) (verified, error) {
	steps, err := j.ShoeSteps(ctx, id)
	if err != nil {
		return verified{}, err
	}
	if len(steps) == 0 || len(steps[0].Events) == 0 {
		return verified{}, fmt.Errorf("replay: shoe %s has no steps", id)
	}
	var loaded tablebus.Event
	if err := json.Unmarshal(steps[0].Events[0].Secure, &loaded); err != nil || loaded.Type != tablebus.ShoeLoaded {
		return verified{}, fmt.Errorf("replay: shoe %s does not start with its loading", id)
	}
	ent, err := catalog.Lookup(loaded.Game)
	if err != nil {
		return verified{}, err
	}
	fam, _ := shoe.ParseFamily(ent.Family)
	proc, err := shoe.ProcedureFor(fam, loaded.Decks)
	if err != nil {
		return verified{}, err
	}
	eng, err := catalog.New(games.Config{Game: loaded.Game, Rules: rules, Decks: proc.Decks})
	if err != nil {
		return verified{}, err
	}
	// Number the shoe and its rounds as they were.
	no, err := strconv.ParseUint(id[strings.LastIndexByte(id, '-')+1:], 10, 64)
	if err != nil || no == 0 {
		return verified{}, fmt.Errorf("replay: shoe id %q has no number", id)
	}
	var firstRound uint64
	for _, st := range steps {
		for _, r := range st.Events {
			if r.Type == tablebus.RoundOpened && firstRound == 0 {
				firstRound = r.Round
			}
		}
	}
	m, err := shoe.NewMachine(shoe.Config{Proc: proc, Engine: eng, Table: j.Table(), FirstShoe: no - 1,
		FirstRound: max(firstRound, 1) - 1, Manage: catalog.Manage})
	if err != nil {
		return verified{}, err
	}
	// The game's state across shoes (the chemin de fer bank) as the shoe found it.
	state, err := j.EngineState(ctx, steps[0].Events[0].Seq)
	if err != nil {
		return verified{}, err
	}
	if err := m.RestoreEngine(state); err != nil {
		return verified{}, fmt.Errorf("replay: %w", err)
	}
	var n verified
	js := make([]shoe.JournaledStep, len(steps))
	for i, st := range steps {
		js[i].Input = st.Input
		if st.Input != nil {
			n.inputs++
		}
		for _, r := range st.Events {
			js[i].Events = append(js[i].Events, r.Secure)
			n.events++
		}
	}
	if err := shoe.Replay(m, js); err != nil {
		return verified{}, fmt.Errorf("replay: shoe %s does NOT verify: %w", id, err)
	}
	return n, nil
}
