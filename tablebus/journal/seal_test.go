package journal

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/bustest"
)

// TestSealedChain: with a sealer, each feed's payloads are sealed and chained, across a
// reopening, and the body a restarted machine replays stays the unsealed event.
func TestSealedChain(t *testing.T) {
	f := bustest.NewFloor(t, "T1")
	path := filepath.Join(t.TempDir(), "j.db")
	j, err := Open(path, "T1")
	if err != nil {
		t.Fatal(err)
	}
	j.SetSealer(f.Tables["T1"])
	for i := uint64(1); i <= 3; i++ {
		if _, err := j.Append(ev(i, tablebus.Guide)); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	j, err = Open(path, "T1") // the chain goes on from the journal's last payloads
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	j.SetSealer(f.Tables["T1"])
	if _, err := j.AppendStep(nil, []tablebus.Event{ev(4, tablebus.Guide), ev(5, tablebus.Guide)}); err != nil {
		t.Fatal(err)
	}
	topics := tablebus.Topics{Table: "T1"}
	var prevS, prevP tablebus.Hash
	n := 0
	err = j.Range(context.Background(), 1, 5, func(r Record) error {
		n++
		body, _ := ev(r.Seq, tablebus.Guide).Marshal()
		if string(r.Secure) != string(body) {
			t.Errorf("event %d: body %s, want %s", r.Seq, r.Secure, body)
		}
		for _, c := range []struct {
			feed tablebus.Feed
			wire []byte
			prev *tablebus.Hash
		}{{tablebus.Secure, r.SecureWire, &prevS}, {tablebus.Public, r.PublicWire, &prevP}} {
			op, err := tablebus.OpenEvent(f.Keyring, topics.Events(c.feed), c.wire)
			if err != nil {
				t.Fatalf("event %d %s: %v", r.Seq, c.feed, err)
			}
			if op.Seal.Prev != *c.prev {
				t.Errorf("event %d %s: prev %s, want %s", r.Seq, c.feed, op.Seal.Prev, *c.prev)
			}
			*c.prev = tablebus.HashOf(c.wire)
		}
		return nil
	})
	if err != nil || n != 5 {
		t.Fatalf("%d events: %v", n, err)
	}
	if tm := j.Timing(); tm.Appends != 1 || tm.Seal <= 0 || tm.Commit <= 0 {
		t.Fatalf("timing %+v", tm)
	}
}

// TestUpgradeFromVersion1: a journal of layout 1 (no wire payloads) opens, is upgraded, and
// its old events' wire form is their body.
func TestUpgradeFromVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := ev(1, tablebus.Guide).Marshal()
	for _, q := range []string{
		`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
		`CREATE TABLE events (seq INTEGER PRIMARY KEY, type TEXT NOT NULL, shoe TEXT NOT NULL, round INTEGER NOT NULL, ts TEXT NOT NULL, secure BLOB NOT NULL, public BLOB NOT NULL)`,
		`CREATE TABLE steps (first_seq INTEGER PRIMARY KEY, last_seq INTEGER NOT NULL, input BLOB)`,
		`INSERT INTO meta VALUES ('table', 'T1'), ('version', '1'), ('session', '4')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO events VALUES (1, 'guide', 'T1-1', 0, '2026-11-29T12:00:00.001Z', ?, ?)`, body, body); err != nil {
		t.Fatal(err)
	}
	db.Close()
	j, err := Open(path, "T1")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	f := bustest.NewFloor(t, "T1")
	j.SetSealer(f.Tables["T1"])
	if _, err := j.Append(ev(2, tablebus.Guide)); err != nil {
		t.Fatal(err)
	}
	var recs []Record
	j.Range(context.Background(), 1, 2, func(r Record) error { recs = append(recs, r); return nil })
	if len(recs) != 2 || string(recs[0].SecureWire) != string(body) {
		t.Fatalf("records %+v", recs)
	}
	op, err := tablebus.OpenEvent(f.Keyring, "sabot/v1/T1/secure/events", recs[1].SecureWire)
	if err != nil || op.Seal.Prev != tablebus.HashOf(body) {
		t.Fatalf("event 2 after the upgrade: %v, prev %s", err, op.Seal.Prev)
	}
	var v string
	j.db.QueryRow("SELECT value FROM meta WHERE key = 'version'").Scan(&v)
	if v != "2" {
		t.Fatalf("layout version %s after the upgrade", v)
	}
}

func TestMarks(t *testing.T) {
	j, err := Open(filepath.Join(t.TempDir(), "j.db"), "T1")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if v, err := j.Mark("published"); v != 0 || err != nil {
		t.Fatalf("unset mark %d %v", v, err)
	}
	for k, v := range map[string]uint64{"published": 9, "ack.engine.E1": 7, "ack.surveillance_S1": 5, "acknowledged": 1} {
		if err := j.SetMark(k, v); err != nil {
			t.Fatal(err)
		}
	}
	j.SetMark("ack.engine.E1", 8)
	m, err := j.Marks("ack.")
	if err != nil || len(m) != 2 || m["engine.E1"] != 8 || m["surveillance_S1"] != 5 {
		t.Fatalf("marks %v %v", m, err)
	}
}
