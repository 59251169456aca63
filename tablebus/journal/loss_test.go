package journal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/bustest"
)

// TestAcceptLoss: a journal cut back from #100 to about #40 by a lost log, started on the
// operator's word, reuses no number: the next event is #101 in session 2, chained to the
// published #100, the shoe open at the cut is abandoned, and shoes and rounds go on past those
// the lost events used. The start after that is a normal one.
func TestAcceptLoss(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "T1.db")
	signer := bustest.NewFloor(t, "T1").Tables["T1"]
	j, err := Open(path, "T1")
	check(t, err)
	j.SetSealer(signer)
	check(t, j.KeepHighWater())
	j.NewSession()
	var published Record
	for seq := uint64(1); seq <= 100; seq++ {
		typ, shoe := tablebus.CardDealt, "T1-000001"
		switch {
		case seq == 1 || seq == 31 || seq == 61:
			typ = tablebus.ShoeLoaded
		case seq == 30 || seq == 60:
			typ = tablebus.ShoeEnded
		}
		if seq > 30 {
			shoe = "T1-000002"
		}
		if seq > 60 {
			shoe = "T1-000003"
		}
		e := ev(seq, typ)
		e.Shoe, e.Round, e.Session = shoe, seq/5, 1
		if published, err = j.Append(e); err != nil {
			t.Fatal(err)
		}
		check(t, j.Cover(seq))
	}
	image := snapshot(t, path, t.TempDir())
	j.Close()
	for i, f := range journalFiles(path) {
		os.Remove(f)
		if b, err := os.ReadFile(journalFiles(image)[i]); err == nil {
			check(t, os.WriteFile(f, b, 0o600))
		}
	}
	// The log cut where the journal ends in shoe 2, open.
	wal, _ := os.ReadFile(path + "-wal")
	for pc := 20; ; pc++ {
		check(t, os.WriteFile(path+"-wal", wal[:len(wal)*pc/100], 0o600))
		in, err := Inspect(path)
		check(t, err)
		if in.Last > 31 {
			break
		}
	}

	_, err = CheckStart(path, "T1")
	var be *BehindError
	if !errors.As(err, &be) || be.Seq != 100 || be.Session != 1 {
		t.Fatalf("check: %v", err)
	}
	j, err = Open(path, "T1")
	check(t, err)
	j.SetSealer(signer)
	last := j.NextSeq() - 1
	if last < 31 || last >= 60 {
		t.Fatalf("the cut journal ends at #%d, not in shoe 2", last)
	}
	loss, err := j.AcceptLoss(ctx, be)
	check(t, err)
	want := Loss{From: last + 1, To: 100, Journal: last, Session: 1, Abandoned: "T1-000002", Shoe: 3, Round: 20}
	if loss != want {
		t.Fatalf("loss %+v, want %+v", loss, want)
	}
	check(t, j.KeepHighWater())
	s, _ := j.NewSession()
	if s != 2 || j.NextSeq() != 101 {
		t.Fatalf("session %d, next #%d", s, j.NextSeq())
	}
	steps, shoes, round, err := j.OpenShoe(ctx)
	if err != nil || len(steps) != 0 || shoes != 3 || round != 20 {
		t.Fatalf("after the loss: %d steps open, %d shoes, round %d, %v", len(steps), shoes, round, err)
	}
	e := ev(101, tablebus.Fault)
	e.Shoe, e.Session = "", 2
	r, err := j.Append(e)
	check(t, err)
	check(t, j.Cover(101))
	for _, p := range [][2][]byte{{r.SecureWire, published.SecureWire}, {r.PublicWire, published.PublicWire}} {
		sealed, err := tablebus.ParseSeal(p[0], true)
		if err != nil || sealed.Prev != tablebus.HashOf(p[1]) {
			t.Errorf("#101 chains to %v (%v), not the published #100", sealed.Prev, err)
		}
	}
	j.Close()

	// The next start is a normal one, on from #101.
	if _, err := CheckStart(path, "T1"); err != nil {
		t.Fatalf("after the loss was journaled: %v", err)
	}
	j, err = Open(path, "T1")
	check(t, err)
	defer j.Close()
	check(t, j.KeepHighWater())
	if s, _ := j.NewSession(); s != 3 || j.NextSeq() != 102 {
		t.Fatalf("session %d, next #%d", s, j.NextSeq())
	}
	if n, r, err := j.Counters(ctx); n != 3 || r != 20 || err != nil {
		t.Fatalf("counters %d %d %v", n, r, err)
	}
	// A shoe loaded after the loss is open again after a restart, numbered after the floor.
	for _, typ := range []tablebus.Type{tablebus.ShoeLoaded, tablebus.CardDealt} {
		e := ev(j.NextSeq(), typ)
		e.Shoe, e.Round = "T1-000004", 21
		if _, err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	steps, shoes, round, err = j.OpenShoe(ctx)
	if err != nil || len(steps) != 2 || shoes != 3 || round != 20 {
		t.Fatalf("a shoe after the loss: %d steps open, %d shoes before, round %d, %v", len(steps), shoes, round, err)
	}
}
