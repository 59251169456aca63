package keystore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
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
// TestWatch runs under testing/synctest: Watch's ticks are the bubble's clock, and each file
// change is given a modification time of its own (the file system's clock is coarser than the
// steps of the test), so that what Watch sees after each step is exact.
// TestDevConcurrent: daemons of several tables making their keys in one directory at once
// (as the end-to-end tests start them) each get their key and a keyring; none reads another's
// key half written.
func TestDevConcurrent(t *testing.T) {
	for run := range 30 {
		dir := t.TempDir()
		errs := make(chan error, 8)
		signers := make([]*tablebus.Signer, 8)
		for i := range 8 {
			go func() {
				var err error
				signers[i], _, err = keystore.Dev(dir, fmt.Sprintf("T%d", i+1))
				errs <- err
			}()
		}
		for range 8 {
			if err := <-errs; err != nil {
				t.Fatalf("run %d: %v", run, err)
			}
		}
		// The keyring left on disk (what a controller loads) lists every table's key.
		root, err := tablebus.ReadPublicKey(filepath.Join(dir, keystore.DevRootPub))
		if err != nil {
			t.Fatal(err)
		}
		kr, err := keystore.ReadKeyring(filepath.Join(dir, keystore.DevKeyring), root)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range signers {
			if _, err := kr.TableKey(s.KeyID(), fmt.Sprintf("T%d", i+1), time.Now()); err != nil {
				t.Fatalf("run %d: the keyring on disk: %v", run, err)
			}
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) > 0 {
			t.Fatalf("run %d: temporary files left: %v", run, left)
		}
	}
}

func TestWatch(t *testing.T) {
	synctest.Test(t, testWatch)
}

func testWatch(t *testing.T) {
	dir := t.TempDir()
	rootKey, _ := tablebus.NewKey()
	k1, _ := tablebus.NewKey()
	k2, _ := tablebus.NewKey()
	entry := func(k *tablebus.Signer) tablebus.KeyEntry {
		return tablebus.KeyEntry{Kid: k.KeyID(), Pub: tablebus.EncodePub(k.Public()), Use: tablebus.UseEvents, Table: "T1", NotBefore: time.Unix(0, 0)}
	}
	s1, s2 := tablebus.NewSigner(k1), tablebus.NewSigner(k2)
	keyPath, krPath := filepath.Join(dir, "T1.key"), filepath.Join(dir, "keyring.json")
	changes := 0
	touch := func(path string) { // a modification time no earlier change has
		t.Helper()
		changes++
		at := time.Date(2001, 1, 1, 0, 0, changes, 0, time.UTC)
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
	if err := tablebus.WritePrivateKey(keyPath, k1); err != nil {
		t.Fatal(err)
	}
	touch(keyPath)
	write := func(v uint64, keys ...tablebus.KeyEntry) {
		kr, err := tablebus.SignKeyring(tablebus.Keyring{Version: v, Keys: keys}, rootKey)
		if err != nil {
			t.Fatal(err)
		}
		if err := keystore.WriteKeyring(krPath, kr); err != nil {
			t.Fatal(err)
		}
		touch(krPath)
	}
	write(1, entry(s1))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	keys, rings, errs := make(chan string, 4), make(chan uint64, 4), make(chan error, 4)
	go keystore.Watch(ctx, keyPath, krPath, nil, "T1", 20*time.Millisecond,
		func(s *tablebus.Signer) { keys <- s.KeyID() }, func(kr *tablebus.Keyring) { rings <- kr.Version }, func(err error) { errs <- err })
	synctest.Wait() // Watch has read the files as they are and waits for its first tick
	// A new key file before the keyring lists it: refused.
	os.Remove(keyPath)
	if err := tablebus.WritePrivateKey(keyPath, k2); err != nil {
		t.Fatal(err)
	}
	touch(keyPath)
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
	// The keyring that lists the new key, then the key touched so that it is read again.
	write(2, entry(s1), entry(s2))
	touch(keyPath)
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
	if !slices.Equal(got, []string{"keyring 2", "key " + s2.KeyID()}) {
		t.Fatalf("got %v, want the keyring, then the key", got)
	}
	// Keyrings installed out of order are refused (review finding: consumers would be wedged):
	// an older version, and one that drops the key the table signs with (k2, in force now).
	refused := func(what, want string) {
		t.Helper()
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
	synctest.Wait()
	if len(errs)+len(rings)+len(keys) != 0 {
		t.Fatalf("%d more refusals, %d keyrings, %d keys", len(errs), len(rings), len(keys))
	}
}
