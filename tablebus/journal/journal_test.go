package journal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

func ev(seq uint64, typ tablebus.Type) tablebus.Event {
	return tablebus.Event{V: 1, Seq: seq, Type: typ, Table: "T1", Source: tablebus.SourceTable, Session: 1,
		Shoe: "T1-1", TS: time.Date(2026, 11, 29, 12, 0, 0, int(seq)*1e6, time.UTC)}
}

func TestAppendReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.db")
	j, err := Open(path, "T1")
	if err != nil {
		t.Fatal(err)
	}
	if j.NextSeq() != 1 {
		t.Fatalf("fresh journal next seq %d", j.NextSeq())
	}
	s1, _ := j.NewSession()
	down := tablebus.FaceDown
	c := card.MustParse("Qh")
	for i := uint64(1); i <= 5; i++ {
		e := ev(i, tablebus.CardDealt)
		e.Card, e.Face = &c, &down
		if _, err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := j.Append(ev(9, tablebus.Burn)); err == nil {
		t.Fatal("a gap in seq was accepted")
	}
	j.Close()

	j, err = Open(path, "T1")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if j.NextSeq() != 6 {
		t.Fatalf("reopened next seq %d, want 6", j.NextSeq())
	}
	if s2, _ := j.NewSession(); s2 != s1+1 {
		t.Fatalf("session %d after %d", s2, s1)
	}
	var got []uint64
	err = j.Range(context.Background(), 2, 4, func(r Record) error {
		got = append(got, r.Seq)
		if !strings.Contains(string(r.Secure), `"card":"Qh"`) || strings.Contains(string(r.Public), "Qh") || !strings.Contains(string(r.Public), `"hidden":true`) {
			t.Errorf("seq %d: secure %s public %s", r.Seq, r.Secure, r.Public)
		}
		return nil
	})
	if err != nil || len(got) != 3 || got[0] != 2 || got[2] != 4 {
		t.Fatalf("range: %v %v", got, err)
	}
	if n, r, err := j.Counters(context.Background()); n != 1 || r != 0 || err != nil {
		t.Fatalf("counters %d %d %v", n, r, err)
	}
	if shoes, _ := j.Shoes(context.Background()); len(shoes) != 1 || shoes[0] != "T1-1" {
		t.Fatalf("shoes %v", shoes)
	}
}

func TestOtherTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.db")
	j, err := Open(path, "T1")
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	if _, err := Open(path, "T2"); !errors.Is(err, ErrOtherTable) {
		t.Fatalf("opening T1's journal as T2: %v", err)
	}
}

func TestDamaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.db")
	if err := os.WriteFile(path, []byte("this is not a database, it is a shopping list\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path, "T1")
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("damaged journal: %v", err)
	}
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), "this is not") {
		t.Fatal("the damaged file was rewritten")
	}
}
