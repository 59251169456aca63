// Package bustest gives tests of the table bus what they need: a floor's keys (an offline root,
// a key per table, dealer and supervisor keys) with the keyring the root signs, and sealed
// events built the way the daemon's journal builds them.
package bustest

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
)

// Epoch is the fixed time the test keys become valid.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Floor is a set of keys and the keyring that lists them.
type Floor struct {
	Root       ed25519.PrivateKey
	Tables     map[string]*tablebus.Signer
	Dealer     *tablebus.Signer // "dealer.D1", every table
	Supervisor *tablebus.Signer // "supervisor.S1", every table
	Keyring    *tablebus.Keyring
}

// Key derives a deterministic key from a name, so that golden files stay stable.
func Key(name string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("sabot test key " + name))
	return ed25519.NewKeyFromSeed(seed[:])
}

// NewFloor returns deterministic keys for the tables and a keyring of version 1.
func NewFloor(t testing.TB, tables ...string) *Floor {
	t.Helper()
	f, err := MakeFloor(tables...)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// MakeFloor is NewFloor outside a test (a helper process).
func MakeFloor(tables ...string) (*Floor, error) {
	f := &Floor{Root: Key("root"), Tables: map[string]*tablebus.Signer{},
		Dealer: tablebus.NewSigner(Key("dealer.D1")), Supervisor: tablebus.NewSigner(Key("supervisor.S1"))}
	var keys []tablebus.KeyEntry
	for _, tb := range tables {
		s := tablebus.NewSigner(Key("table " + tb))
		f.Tables[tb] = s
		keys = append(keys, tablebus.KeyEntry{Kid: s.KeyID(), Pub: tablebus.EncodePub(s.Public()), Use: tablebus.UseEvents, Table: tb, NotBefore: Epoch})
	}
	keys = append(keys,
		tablebus.KeyEntry{Kid: f.Dealer.KeyID(), Pub: tablebus.EncodePub(f.Dealer.Public()), Use: tablebus.UseCommands, Table: "*", Role: tablebus.RoleDealer, Name: "dealer.D1", NotBefore: Epoch},
		tablebus.KeyEntry{Kid: f.Supervisor.KeyID(), Pub: tablebus.EncodePub(f.Supervisor.Public()), Use: tablebus.UseCommands, Table: "*", Role: tablebus.RoleSupervisor, Name: "supervisor.S1", NotBefore: Epoch})
	kr, err := tablebus.SignKeyring(tablebus.Keyring{Version: 1, Issued: Epoch, Keys: keys}, f.Root)
	if err != nil {
		return nil, err
	}
	f.Keyring = kr
	return f, nil
}

// RootPub returns the root's public key.
func (f *Floor) RootPub() ed25519.PublicKey { return f.Root.Public().(ed25519.PublicKey) }

// Chain seals a table's events in sequence the way the daemon does, one feed at a time.
type Chain struct {
	Signer *tablebus.Signer
	Topic  string
	Prev   tablebus.Hash
}

// NewChain starts a chain for table's feed.
func (f *Floor) NewChain(table string, feed tablebus.Feed) *Chain {
	return &Chain{Signer: f.Tables[table], Topic: tablebus.Topics{Table: table}.Events(feed)}
}

// Seal seals e as the next event of the chain.
func (c *Chain) Seal(e tablebus.Event) []byte {
	body, err := e.Marshal()
	if err != nil {
		panic(err)
	}
	p, err := c.Signer.SealChained(tablebus.DomainEvent, c.Topic, c.Prev, body)
	if err != nil {
		panic(err)
	}
	c.Prev = tablebus.HashOf(p)
	return p
}

// Event returns a deterministic event number seq of table: a card dealt, at Epoch + seq ms.
func Event(table string, seq uint64) tablebus.Event {
	return tablebus.Event{V: tablebus.SchemaVersion, Seq: seq, Type: tablebus.Guide, Table: table, Source: tablebus.SourceTable,
		Session: 1, TS: Epoch.Add(time.Duration(seq) * time.Millisecond), Say: []string{fmt.Sprintf("event %d", seq)}}
}
