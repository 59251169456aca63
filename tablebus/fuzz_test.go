package tablebus_test

import (
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
