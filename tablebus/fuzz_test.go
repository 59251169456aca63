package tablebus_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/bustest"
)

// FuzzOpenEvent: no input panics, and nothing but the signed vector is ever accepted (Ed25519
// as Go implements it is not malleable).
func FuzzOpenEvent(f *testing.F) {
	fl := bustest.NewFloor(f, "T1")
	f.Add([]byte(vector))
	f.Add([]byte(vector[:len(vector)-3]))
	f.Add([]byte(`{"v":1,"seq":1,"type":"card","table":"T1","source":"table","session":1,"ts":"2026-01-01T00:00:00Z"}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := tablebus.OpenEvent(fl.Keyring, "sabot/v1/T1/secure/events", b); err == nil && string(b) != vector {
			t.Fatalf("accepted a payload that was never signed: %q", b)
		}
		tablebus.Decode(b)
		tablebus.ParseSeal(b, false)
	})
}

// FuzzDecode: no payload panics the decoder or Public, and of every payload it accepts: the
// event encodes to a payload it accepts again, with the same bytes from then on; its public form
// is a payload it accepts, already public (Public is idempotent), and carries no card except
// where it shows one face up, no card named secure-only, no mark of a face-down card.
func FuzzDecode(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "events", "*.secure.jsonl"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			f.Add(line)
		}
	}
	if len(paths) == 0 {
		f.Fatal("no golden events to seed from")
	}
	f.Add([]byte(`{"v":1,"seq":1,"type":"guide","table":"T1","source":"table","session":1,"ts":"2026-01-01T00:00:00Z","need":{"kind":"decision","options":["exchange"],"exchanges":[[],["Kd"]]}}`))
	f.Add([]byte(`{"v":1,"seq":1,"type":"card","table":"T1","source":"table","session":1,"ts":"2026-01-01T00:00:00Z","card":"Kd","face":"sideways"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := tablebus.Decode(b)
		if err != nil {
			return
		}
		m1, err := e.Marshal()
		if err != nil {
			t.Fatalf("accepted %q, cannot encode it: %v", b, err)
		}
		e2, err := tablebus.Decode(m1)
		if err != nil {
			t.Fatalf("accepted %q, refuses its encoding %q: %v", b, m1, err)
		}
		if m2, _ := e2.Marshal(); !bytes.Equal(m1, m2) {
			t.Fatalf("encoding is not stable:\n%s\n%s", m1, m2)
		}
		p := e.Public()
		pb, err := p.Marshal()
		if err != nil {
			t.Fatalf("public form of %q: %v", b, err)
		}
		if _, err := tablebus.Decode(pb); err != nil {
			t.Fatalf("public form %q refused: %v", pb, err)
		}
		if again, _ := p.Public().Marshal(); !bytes.Equal(again, pb) {
			t.Fatalf("Public is not idempotent:\n%s\n%s", pb, again)
		}
		if p.Card != nil && (p.Face == nil || *p.Face != tablebus.FaceUp) {
			t.Fatalf("public form names a card not face up: %s", pb)
		}
		if p.Cards != nil || p.Missing != nil || p.Extra != nil || p.Raw != "" || p.Need != nil && p.Need.Exchanges != nil {
			t.Fatalf("public form keeps a secure-only field: %s", pb)
		}
		for _, h := range append(append([]tablebus.Hand(nil), p.Hands...), derefHand(p.Dealer)...) {
			if h.Down != nil {
				t.Fatalf("public form keeps a face-down mark: %s", pb)
			}
		}
		if p.Unshown > 0 && p.Detail != nil || p.Type == tablebus.Fault && p.Problem != "" || p.Type == tablebus.Guide && (p.Say != nil || p.Msgs != nil) {
			t.Fatalf("public form keeps words or detail it must not: %s", pb)
		}
	})
}

func derefHand(h *tablebus.Hand) []tablebus.Hand {
	if h == nil {
		return nil
	}
	return []tablebus.Hand{*h}
}

// FuzzParseKeyring: no input panics; nothing but the root's own keyring is accepted.
func FuzzParseKeyring(f *testing.F) {
	fl := bustest.NewFloor(f, "T1")
	f.Add(fl.Keyring.Raw())
	f.Add([]byte(`{"v":1,"version":1,"root":"","keys":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := tablebus.ParseKeyring(b, fl.RootPub()); err == nil && string(b) != string(fl.Keyring.Raw()) {
			t.Fatalf("accepted a keyring the root never signed: %q", b)
		}
		tablebus.ParseKeyring(b, nil)
	})
}

// FuzzCommand: no command payload panics the guard or the decoders.
func FuzzCommand(f *testing.F) {
	fl := bustest.NewFloor(f, "T1")
	now := bustest.Epoch.Add(time.Hour)
	topic := tablebus.Topics{Table: "T1"}.Commands()
	signed, _ := tablebus.SealCommand(fl.Dealer, topic, tablebus.Command{V: 1, Cmd: "cut", At: 60}, now)
	f.Add(signed)
	f.Add([]byte(`{"v":1,"cmd":"manual","card":"As"}`))
	f.Add([]byte(`{"v":1,"table":"T1","consumer":"engine.E1","seq":5,"ts":"2026-01-01T00:00:00Z"}`))
	f.Add([]byte(`{"v":1,"table":"T1","consumer":"engine.E1","from":5,"to":9,"ts":"2026-01-01T00:00:00Z"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		g := tablebus.NewCommandGuard(fl.Keyring)
		if _, _, err := g.Check(topic, b, now); err == nil && string(b) != string(signed) {
			t.Fatalf("accepted a command nobody signed: %q", b)
		}
		tablebus.DecodeCommand(b)
		tablebus.DecodeAck("sabot/v1/T1/ack/engine.E1", b)
		tablebus.DecodeReplay("sabot/v1/T1/replay/engine.E1", b)
		tablebus.OpenStatus(fl.Keyring, "sabot/v1/T1/public/status", b)
	})
}

// FuzzOpenProgressive: no input panics the opening of the controller's messages, and nothing but
// the messages the controller's key sealed is accepted, for the topic it sealed them for.
func FuzzOpenProgressive(f *testing.F) {
	fl := bustest.NewFloor(f, "T1")
	ctl := tablebus.NewSigner(bustest.Key("progressive.P1"))
	kr, err := tablebus.SignKeyring(tablebus.Keyring{Version: 2, Issued: bustest.Epoch, Keys: append(fl.Keyring.Keys, tablebus.KeyEntry{Kid: ctl.KeyID(),
		Pub: tablebus.EncodePub(ctl.Public()), Use: tablebus.UseProgressive, Table: "*", Name: "progressive.P1", NotBefore: bustest.Epoch})}, fl.Root)
	if err != nil {
		f.Fatal(err)
	}
	ts := bustest.Epoch.Add(time.Hour)
	award := tablebus.Award{Controller: "progressive.P1", Pool: "arica", Table: "T1", Round: 7, Ref: 40, OK: true, Value: 100_000,
		Payouts: []tablebus.PrizePaid{{Seat: 3, Kind: "hand", Category: "royal flush", Prize: "100%", Amount: 100_000}}, TS: ts}
	signed := map[string]string{}
	for _, m := range []struct {
		topic string
		v     any
	}{
		{tablebus.Topics{Table: "T1"}.Award(), award},
		{tablebus.PoolTopics{Pool: "arica"}.Meter(), tablebus.Meter{Pool: "arica", Controller: "progressive.P1", Value: 123_456, Version: 9, TS: ts}},
		{tablebus.PoolTopics{Pool: "arica"}.Status(), tablebus.PoolStatus{Pool: "arica", Controller: "progressive.P1", Online: true, Session: 1, TS: ts}},
	} {
		b, err := tablebus.SealProgressive(ctl, m.topic, m.v)
		if err != nil {
			f.Fatal(err)
		}
		signed[string(b)] = m.topic
		f.Add(b, m.topic)
	}
	f.Add([]byte(`{"v":1}`), tablebus.Topics{Table: "T1"}.Award())
	f.Fuzz(func(t *testing.T, b []byte, topic string) {
		var a tablebus.Award
		var m tablebus.Meter
		var st tablebus.PoolStatus
		for _, v := range []any{&a, &m, &st} {
			if _, err := tablebus.OpenProgressive(kr, topic, b, v); err == nil && signed[string(b)] != topic {
				t.Fatalf("accepted a message the controller never sealed for %s: %q", topic, b)
			}
		}
	})
}
