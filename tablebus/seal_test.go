package tablebus_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/bustest"
)

// The wire form of one event, byte by byte (the package comment explains each part). The key
// is bustest.Key("table T1"): its id is b76cc856ace497cd, its public key
// qiUo1kehCzci3h07MS8VfeHHWXj_LYpfLZ5o3J58CKQ (base64url).
var vector = strings.Join([]string{
	// The body: Event.Marshal, compact JSON, its closing brace removed.
	`{"v":1,"seq":42,"type":"card","table":"T1","source":"table","session":3,"shoe":"T1-000001",`,
	`"round":7,"ts":"2026-05-01T20:15:00Z","card":"Qh","face":"up","to":{"name":"player"},"pos":12`,
	// ,"prev":" — 9 bytes — then the previous payload's SHA-256 in 64 lowercase hex digits
	// (here the bytes 00 01 … 1f).
	`,"prev":"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f`,
	// ","kid":" — 9 bytes — then the key id: the first 8 bytes of SHA-256(public key), 16 hex.
	`","kid":"b76cc856ace497cd`,
	// ","sig":" — 9 bytes. The signature covers "sabot/v1 event" 00 topic 00 and every byte
	// above, up to and including this field's opening quote.
	`","sig":"`,
	// The Ed25519 signature: 64 bytes in 86 unpadded base64url characters.
	`qw5R6caDOsFTMEsaG1QviRBMZRyrBhdHMlHAWwsdvO7Na88AIh6mEgUeSN0JT2nUcHhZfqm7FzzuUeoEsRNvAw`,
	// The closing quote and brace.
	`"}`,
}, "")

func vectorEvent() tablebus.Event {
	c := card.MustParse("Qh")
	up := tablebus.FaceUp
	return tablebus.Event{V: 1, Seq: 42, Type: tablebus.CardDealt, Table: "T1", Source: "table", Session: 3, Shoe: "T1-000001",
		Round: 7, TS: time.Date(2026, 5, 1, 20, 15, 0, 0, time.UTC), Card: &c, Face: &up, To: &tablebus.Place{Name: "player"}, Pos: 12}
}

func vectorPrev() tablebus.Hash {
	var prev tablebus.Hash
	for i := range prev {
		prev[i] = byte(i)
	}
	return prev
}

func TestSealVector(t *testing.T) {
	f := bustest.NewFloor(t, "T1")
	body, err := vectorEvent().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	topic := "sabot/v1/T1/secure/events"
	p, err := f.Tables["T1"].SealChained(tablebus.DomainEvent, topic, vectorPrev(), body)
	if err != nil {
		t.Fatal(err)
	}
	if string(p) != vector {
		t.Fatalf("wire form changed:\n got  %s\n want %s", p, vector)
	}
	if got, want := len(p)-(len(body)-1), tablebus.ChainedTrailerLen; got != want || want != 195 {
		t.Fatalf("trailer of %d bytes, want %d (195)", got, want)
	}
	op, err := tablebus.OpenEvent(f.Keyring, topic, p)
	if err != nil {
		t.Fatal(err)
	}
	if op.Seal.KeyID != "b76cc856ace497cd" || op.Seal.Prev != vectorPrev() || op.Event.Seq != 42 || op.Event.Card.String() != "Qh" {
		t.Fatalf("opened %+v", op)
	}
	// The decoded event is the body's event with the seal's fields.
	want := vectorEvent()
	got := op.Event
	got.Prev, got.Kid, got.Sig = "", "", ""
	gb, _ := got.Marshal()
	wb, _ := want.Marshal()
	if !bytes.Equal(gb, wb) {
		t.Fatalf("decoded %s, want %s", gb, wb)
	}
}

func TestOpenEventRefuses(t *testing.T) {
	f := bustest.NewFloor(t, "T1", "T2")
	topic := "sabot/v1/T1/secure/events"
	good := []byte(vector)
	flip := func(i int) []byte {
		b := bytes.Clone(good)
		b[i] ^= 1
		return b
	}
	unsigned, _ := vectorEvent().Marshal()
	body, _ := vectorEvent().Marshal()
	byT2, _ := f.Tables["T2"].SealChained(tablebus.DomainEvent, topic, vectorPrev(), body)
	asStatus, _ := f.Tables["T1"].SealChained(tablebus.DomainStatus, topic, vectorPrev(), body)
	revoked, err := tablebus.SignKeyring(tablebus.Keyring{Version: 2, Issued: bustest.Epoch, Keys: f.Keyring.Keys,
		Revoked: []string{f.Tables["T1"].KeyID()}}, f.Root)
	if err != nil {
		t.Fatal(err)
	}
	e := vectorEvent()
	e.TS = bustest.Epoch.Add(-time.Hour)
	early, _ := e.Marshal()
	beforeKey, _ := f.Tables["T1"].SealChained(tablebus.DomainEvent, topic, vectorPrev(), early)
	tests := []struct {
		name    string
		kr      *tablebus.Keyring
		topic   string
		payload []byte
		want    error
	}{
		{"a body byte changed", f.Keyring, topic, flip(20), tablebus.ErrBadSignature},
		{"a prev byte changed", f.Keyring, topic, flip(strings.Index(vector, `"prev"`) + 12), tablebus.ErrBadSignature},
		{"a signature byte changed", f.Keyring, topic, flip(len(vector) - 10), tablebus.ErrBadSignature},
		{"another topic", f.Keyring, "sabot/v1/T1/public/events", good, tablebus.ErrBadSignature},
		{"another table's topic", f.Keyring, "sabot/v1/T2/secure/events", good, tablebus.ErrBadSignature},
		{"unsigned", f.Keyring, topic, unsigned, tablebus.ErrUnsigned},
		{"truncated", f.Keyring, topic, good[:len(good)-1], tablebus.ErrUnsigned},
		{"empty", f.Keyring, topic, nil, tablebus.ErrUnsigned},
		{"another table's key", f.Keyring, topic, byT2, tablebus.ErrKeyNotValid},
		{"signed as a status", f.Keyring, topic, asStatus, tablebus.ErrBadSignature},
		{"a revoked key", revoked, topic, good, tablebus.ErrRevokedKey},
		{"before the key's validity", f.Keyring, topic, beforeKey, tablebus.ErrKeyNotValid},
		{"kid in capitals", f.Keyring, topic, bytes.Replace(good, []byte("b76cc856ace497cd"), []byte("B76CC856ACE497CD"), 1), tablebus.ErrUnsigned},
		{"oversized", f.Keyring, topic, make([]byte, tablebus.MaxPayload+1), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tablebus.OpenEvent(tc.kr, tc.topic, tc.payload)
			if err == nil {
				t.Fatal("accepted")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
		})
	}
	unknown := bustest.NewFloor(t, "T9")
	if _, err := tablebus.OpenEvent(unknown.Keyring, topic, good); !errors.Is(err, tablebus.ErrUnknownKey) {
		t.Fatalf("another floor's keyring: %v", err)
	}
}

func TestKeyring(t *testing.T) {
	f := bustest.NewFloor(t, "T1")
	kr, err := tablebus.ParseKeyring(f.Keyring.Raw(), f.RootPub())
	if err != nil {
		t.Fatal(err)
	}
	if kr.Version != 1 || len(kr.Keys) != 3 || kr.RootID() != tablebus.KeyIDOf(f.RootPub()) {
		t.Fatalf("keyring %v", kr)
	}
	other := bustest.Key("another root")
	forged, err := tablebus.SignKeyring(tablebus.Keyring{Version: 9, Issued: bustest.Epoch, Keys: f.Keyring.Keys}, other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tablebus.ParseKeyring(forged.Raw(), f.RootPub()); !errors.Is(err, tablebus.ErrUnknownKey) {
		t.Fatalf("a keyring signed by another root: %v", err)
	}
	raw := bytes.Replace(f.Keyring.Raw(), []byte(`"version":1`), []byte(`"version":2`), 1)
	if _, err := tablebus.ParseKeyring(raw, f.RootPub()); !errors.Is(err, tablebus.ErrBadSignature) {
		t.Fatalf("an altered keyring: %v", err)
	}
	bad := []tablebus.KeyEntry{{Kid: "0000000000000000", Pub: f.Keyring.Keys[0].Pub, Use: tablebus.UseEvents, Table: "T1", NotBefore: bustest.Epoch}}
	if _, err := tablebus.SignKeyring(tablebus.Keyring{Version: 1, Keys: bad}, f.Root); err == nil || !strings.Contains(err.Error(), "is not the key's") {
		t.Fatalf("a wrong kid: %v", err)
	}
}

func TestCommandGuard(t *testing.T) {
	f := bustest.NewFloor(t, "T1")
	topic := tablebus.Topics{Table: "T1"}.Commands()
	now := bustest.Epoch.Add(time.Hour)
	seal := func(s *tablebus.Signer, c tablebus.Command, at time.Time) []byte {
		c.V = tablebus.SchemaVersion
		b, err := tablebus.SealCommand(s, topic, c, at)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cut := tablebus.Command{Cmd: "cut", At: 100}
	replayed := seal(f.Dealer, cut, now)
	tests := []struct {
		name    string
		topic   string
		payload []byte
		want    string // "" accepted, else a part of the error
		by      string
	}{
		{"a dealer's cut", topic, seal(f.Dealer, tablebus.Command{Cmd: "cut", At: 101}, now), "", "dealer.D1"},
		{"a dealer may not bring new cards", topic, seal(f.Dealer, tablebus.Command{Cmd: "new-shoe"}, now), "may not give the command", ""},
		{"the supervisor brings new cards", topic, seal(f.Supervisor, tablebus.Command{Cmd: "new-shoe"}, now), "", "supervisor.S1"},
		{"a manual card in another's name", topic, seal(f.Dealer, tablebus.Command{Cmd: "manual", Dealer: "dealer.D2"}, now), "signed by dealer.D1's key", ""},
		{"a dealer may not void alone", topic, seal(f.Dealer, tablebus.Command{Cmd: "void", Reason: "x"}, now), "may not give the command", ""},
		{"a dealer may not claim an approval", topic, seal(f.Dealer, tablebus.Command{Cmd: "cut", At: 102, Supervisor: "supervisor.S1"}, now), "not a supervisor", ""},
		{"the supervisor approves the dealer's void", topic, seal(f.Supervisor, tablebus.Command{Cmd: "void", Reason: "x", Dealer: "dealer.D1"}, now), "", "dealer.D1"},
		{"an approval in another supervisor's name", topic, seal(f.Supervisor, tablebus.Command{Cmd: "void", Reason: "y", Supervisor: "supervisor.S2"}, now), "signed by supervisor.S1's key", ""},
		{"the supervisor changes the limits", topic, seal(f.Supervisor, tablebus.Command{Cmd: "limits", Limits: []tablebus.Limit{{Spot: "tie", Min: 100, Max: 1000}}}, now), "", "supervisor.S1"},
		{"too old", topic, seal(f.Dealer, cut, now.Add(-time.Minute)), "a replay or a wrong clock", ""},
		{"from the future", topic, seal(f.Dealer, cut, now.Add(time.Minute)), "a replay or a wrong clock", ""},
		{"first copy", topic, replayed, "", "dealer.D1"},
		{"the same command again", topic, replayed, "already applied", ""},
		{"another table's topic", "sabot/v1/T2/cmd", seal(f.Dealer, cut, now), "bad signature", ""},
		{"unsigned", topic, []byte(`{"v":1,"cmd":"cut","at":100}`), "unsigned", ""},
		{"a table key", topic, seal(f.Tables["T1"], cut, now), "not a commands key", ""},
	}
	g := tablebus.NewCommandGuard(f.Keyring)
	for _, tc := range tests {
		c, key, err := g.Check(tc.topic, tc.payload, now)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.want == "" && c.Dealer != tc.by:
			t.Errorf("%s: by %q (key %s), want %q", tc.name, c.Dealer, key.Name, tc.by)
		case tc.want == "" && key.Role == tablebus.RoleSupervisor && c.Supervisor != key.Name:
			t.Errorf("%s: approved by %q, signed by %s", tc.name, c.Supervisor, key.Name)
		case tc.want == "" && key.Role == tablebus.RoleDealer && (c.Supervisor != "" || key.Name != tc.by):
			t.Errorf("%s: a dealer's command: by %q (key %s), approved %q", tc.name, c.Dealer, key.Name, c.Supervisor)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tablebus.ErrCommandRefused)):
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
	for cmd := range tablebus.Commands {
		if len(tablebus.CommandRoles[cmd]) == 0 {
			t.Errorf("command %q: no role may give it", cmd)
		}
	}
}

func TestStatusSeal(t *testing.T) {
	f := bustest.NewFloor(t, "T1")
	topic := tablebus.Topics{Table: "T1"}.Status()
	st := tablebus.Status{V: 1, Table: "T1", Online: true, Session: 4, Conn: 2, Seq: 99, TS: bustest.Epoch}
	p, err := tablebus.SealStatus(f.Tables["T1"], topic, st)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tablebus.OpenStatus(f.Keyring, topic, p)
	if err != nil || got.Session != 4 || got.Conn != 2 || !got.Online || got.Seq != 99 {
		t.Fatalf("%+v %v", got, err)
	}
	if _, err := tablebus.OpenStatus(f.Keyring, "sabot/v1/T2/public/status", p); err == nil {
		t.Fatal("a status moved to another table's topic was accepted")
	}
	// A status cannot pass for an event, nor the reverse.
	if _, err := tablebus.OpenEvent(f.Keyring, topic, p); err == nil {
		t.Fatal("a status opened as an event")
	}
	if _, err := tablebus.OpenStatus(f.Keyring, "sabot/v1/T1/secure/events", []byte(vector)); err == nil {
		t.Fatal("an event opened as a status")
	}
}

// The signature's last character carries 4 unused bits: a payload whose last character differs
// only in those bits decodes to the same signature, and must be refused (review finding: one
// altered copy delivered first would wedge every consumer on the hash chain).
func TestSignatureIsCanonical(t *testing.T) {
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	fl := bustest.NewFloor(t, "T1")
	ch := fl.NewChain("T1", tablebus.Secure)
	topic := tablebus.Topics{Table: "T1"}.SecureEvents()
	p := ch.Seal(bustest.Event("T1", 1))
	if _, err := tablebus.OpenEvent(fl.Keyring, topic, p); err != nil {
		t.Fatal(err)
	}
	i := len(p) - 3 // …<the signature's last character>"}
	k := strings.IndexByte(b64, p[i])
	for bit := 1; bit < 16; bit++ {
		q := append([]byte(nil), p...)
		q[i] = b64[k^bit]
		if _, err := tablebus.OpenEvent(fl.Keyring, topic, q); err == nil {
			t.Fatalf("a payload altered in the signature's padding bits (%q for %q) verifies", q[i], p[i])
		}
	}
}

// A command signed before the daemon started is refused: the daemon forgot the signatures it
// saw before a restart, and a command re-sent across it must not be applied twice.
func TestCommandBeforeStartRefused(t *testing.T) {
	fl := bustest.NewFloor(t, "T1")
	topic := tablebus.Topics{Table: "T1"}.Commands()
	signedAt := bustest.Epoch.Add(time.Hour)
	p, err := tablebus.SealCommand(fl.Dealer, topic, tablebus.Command{V: 1, Cmd: "cut", At: 100}, signedAt)
	if err != nil {
		t.Fatal(err)
	}
	g := tablebus.NewCommandGuard(fl.Keyring)
	if _, _, err := g.Check(topic, p, signedAt.Add(time.Second)); err != nil {
		t.Fatalf("first time: %v", err)
	}
	restarted := tablebus.NewCommandGuard(fl.Keyring)
	restarted.Since(signedAt.Add(2 * time.Second))
	if _, _, err := restarted.Check(topic, p, signedAt.Add(3*time.Second)); err == nil || !strings.Contains(err.Error(), "before this daemon started") {
		t.Fatalf("after a restart: %v", err)
	}
}
