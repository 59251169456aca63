package main

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/shoetest"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/outbox"
)

// journalOf writes two simulated shoes of game to a journal, as the daemon does.
func journalOf(t *testing.T, game string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "T1.db")
	j, err := journal.Open(path, "T1")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	ob := outbox.New(j, 1, nil)
	ent, _ := catalog.Lookup(game)
	fam, _ := shoe.ParseFamily(ent.Family)
	proc, _ := shoe.ProcedureFor(fam, 0)
	eng, _ := catalog.New(games.Config{Game: game})
	m, _ := shoe.NewMachine(shoe.Config{Proc: proc, Engine: eng, Table: "T1", Manage: catalog.Manage})
	tb := shoetest.NewTable(m, shoetest.NewDealer(game, proc, 4), time.Date(2026, 3, 1, 20, 0, 0, 0, time.UTC))
	tb.MisreadEvery = 50
	tb.Journal = func(in []byte, evs []tablebus.Event) error { return ob.Emit(context.Background(), in, evs) }
	if err := tb.RunShoes(2, 100000); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReplayVerifies(t *testing.T) {
	for _, game := range []string{"punto-banco", "blackjack", "trente-et-quarante", "chemin-de-fer"} {
		path := journalOf(t, game)
		var out, errb bytes.Buffer
		if err := run(context.Background(), []string{"replay", "--journal", path, "--list"}, nil, &out, &errb); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "T1-000002") || strings.Count(out.String(), "ended") != 2 {
			t.Fatalf("%s list:\n%s", game, out.String())
		}
		out.Reset()
		if err := run(context.Background(), []string{"replay", "--journal", path, "--shoe", "T1-000002", "--round", "0", "--verify"}, nil, &out, &errb); err != nil {
			t.Fatalf("%s: %v", game, err)
		}
		if !strings.Contains(out.String(), "verified: the rules") || !strings.Contains(out.String(), "entered by hand") {
			t.Fatalf("%s replay:\n%s", game, tail(out.String()))
		}
	}
}

// A journal altered after the fact (one settlement changed) does not verify.
func TestReplayDetectsTampering(t *testing.T) {
	path := journalOf(t, "punto-banco")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.Exec(`UPDATE events SET secure = CAST(replace(CAST(secure AS TEXT), '"net":-', '"net":') AS BLOB)
		WHERE seq = (SELECT MIN(seq) FROM events WHERE type = 'round.settled' AND shoe = 'T1-000002' AND CAST(secure AS TEXT) LIKE '%"net":-%')`)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("tampered with %d rows", n)
	}
	db.Close()
	var out, errb bytes.Buffer
	err = run(context.Background(), []string{"replay", "--journal", path, "--shoe", "T1-000002", "--verify"}, nil, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "does NOT verify") || !strings.Contains(err.Error(), "differs") {
		t.Fatalf("tampered journal: %v", err)
	}
}

func TestReplayBadInput(t *testing.T) {
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"replay", "--journal", filepath.Join(t.TempDir(), "none.db"), "--list"}, nil, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("missing journal: %v", err)
	}
	path := journalOf(t, "punto-banco")
	err = run(context.Background(), []string{"replay", "--journal", path, "--shoe", "T1-000009"}, nil, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), `no shoe "T1-000009"`) {
		t.Fatalf("unknown shoe: %v", err)
	}
}

func tail(s string) string {
	l := strings.Split(s, "\n")
	return strings.Join(l[max(0, len(l)-15):], "\n")
}
