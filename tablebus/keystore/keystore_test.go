package keystore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/keystore"
)

func TestDev(t *testing.T) {
	dir := t.TempDir()
	s1, kr1, err := keystore.Dev(dir, "T1")
	if err != nil {
		t.Fatal(err)
	}
	s2, kr2, err := keystore.Dev(dir, "T2") // a second table in the same directory
	if err != nil {
		t.Fatal(err)
	}
	if kr2.Version != kr1.Version+1 {
		t.Fatalf("keyring versions %d then %d", kr1.Version, kr2.Version)
	}
	root, err := tablebus.ReadPublicKey(filepath.Join(dir, keystore.DevRootPub))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, c := range []struct {
		s     *tablebus.Signer
		table string
	}{{s1, "T1"}, {s2, "T2"}} {
		if _, err := kr2.TableKey(c.s.KeyID(), c.table, now); err != nil {
			t.Errorf("%s: %v", c.table, err)
		}
	}
	again, kr3, err := keystore.Dev(dir, "T1")
	if err != nil || again.KeyID() != s1.KeyID() || kr3.Version != kr2.Version {
		t.Fatalf("reopening: key %s (was %s), keyring v%d: %v", again.KeyID(), s1.KeyID(), kr3.Version, err)
	}
	if _, _, err := keystore.Load(filepath.Join(dir, keystore.TableKeyFile("T1")), filepath.Join(dir, keystore.DevKeyring), root, "T2", now); err == nil ||
		!strings.Contains(err.Error(), "cannot sign table T2") {
		t.Fatalf("T1's key for T2: %v", err)
	}
}

// TestWatch: a new keyring, then a new key file, are picked up without a restart; a key the
// keyring does not list is refused.
func TestWatch(t *testing.T) {
	dir := t.TempDir()
	rootKey, _ := tablebus.NewKey()
	k1, _ := tablebus.NewKey()
	k2, _ := tablebus.NewKey()
	entry := func(k *tablebus.Signer) tablebus.KeyEntry {
		return tablebus.KeyEntry{Kid: k.KeyID(), Pub: tablebus.EncodePub(k.Public()), Use: tablebus.UseEvents, Table: "T1", NotBefore: time.Unix(0, 0)}
	}
	s1, s2 := tablebus.NewSigner(k1), tablebus.NewSigner(k2)
	keyPath, krPath := filepath.Join(dir, "T1.key"), filepath.Join(dir, "keyring.json")
	if err := tablebus.WritePrivateKey(keyPath, k1); err != nil {
		t.Fatal(err)
	}
	write := func(v uint64, keys ...tablebus.KeyEntry) {
		kr, err := tablebus.SignKeyring(tablebus.Keyring{Version: v, Keys: keys}, rootKey)
		if err != nil {
			t.Fatal(err)
		}
		if err := keystore.WriteKeyring(krPath, kr); err != nil {
			t.Fatal(err)
		}
	}
	write(1, entry(s1))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	keys, rings, errs := make(chan string, 4), make(chan uint64, 4), make(chan error, 4)
	go keystore.Watch(ctx, keyPath, krPath, nil, "T1", 20*time.Millisecond,
		func(s *tablebus.Signer) { keys <- s.KeyID() }, func(kr *tablebus.Keyring) { rings <- kr.Version }, func(err error) { errs <- err })
	time.Sleep(50 * time.Millisecond)
	// A new key file before the keyring lists it: refused.
	os.Remove(keyPath)
	if err := tablebus.WritePrivateKey(keyPath, k2); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errs:
		if !strings.Contains(err.Error(), "cannot sign") {
			t.Fatalf("refusal: %v", err)
		}
	case k := <-keys:
		t.Fatalf("key %s taken before the keyring listed it", k)
	case <-time.After(2 * time.Second):
		t.Fatal("no refusal")
	}
	write(2, entry(s1), entry(s2))
	// Touch the key so it is read again now that the keyring lists it.
	time.Sleep(30 * time.Millisecond)
	later := time.Now().Add(time.Second)
	os.Chtimes(keyPath, later, later)
	var got []string
	deadline := time.After(3 * time.Second)
	for len(got) < 2 {
		select {
		case v := <-rings:
			got = append(got, fmt.Sprintf("keyring %d", v))
		case k := <-keys:
			got = append(got, "key "+k)
		case <-deadline:
			t.Fatalf("got %v", got)
		}
	}
	if !slices.Contains(got, "keyring 2") || !slices.Contains(got, "key "+s2.KeyID()) {
		t.Fatalf("got %v", got)
	}
	// Keyrings installed out of order are refused (review finding: consumers would be wedged):
	// an older version, and one that drops the key the table signs with (k2, in force now).
	refused := func(what, want string) {
		t.Helper()
		time.Sleep(30 * time.Millisecond)
		later := time.Now().Add(2 * time.Second)
		os.Chtimes(krPath, later, later)
		select {
		case err := <-errs:
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("%s: %v, want %q", what, err, want)
			}
		case v := <-rings:
			t.Fatalf("%s: keyring %d taken", what, v)
		case <-time.After(2 * time.Second):
			t.Fatalf("%s: no refusal", what)
		}
	}
	write(1, entry(s1), entry(s2))
	refused("an older keyring", "not newer")
	write(3, entry(s1))
	refused("a keyring without the key in force", "does not let the table's key")
}
