package terminal

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/tablebus"
)

// cheap is a KDF for tests that try many PINs; DefaultKDF is tried once.
var cheap = KDF{Time: 1, Memory: 64, Threads: 1}

func TestPeople(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dealers.json")
	p, err := OpenPeople(path)
	if err != nil {
		t.Fatal(err)
	}
	_, d7, _ := ed25519.GenerateKey(nil)
	_, s1, _ := ed25519.GenerateKey(nil)
	if err := p.Add("dealer.D7", tablebus.RoleDealer, "es", "12a4", d7, cheap); err == nil || !strings.Contains(err.Error(), "4 to 12 digits") {
		t.Fatalf("a PIN with a letter: %v", err)
	}
	if err := p.Add("dealer.D7", tablebus.RoleDealer, "es", "4711", d7, cheap); err != nil {
		t.Fatal(err)
	}
	if err := p.Add("supervisor.S1", tablebus.RoleSupervisor, "en", "80808080", s1, DefaultKDF); err != nil {
		t.Fatal(err)
	}
	// At rest: neither PIN nor key in the clear, and only the owner may read the file.
	b, _ := os.ReadFile(path)
	for _, secret := range [][]byte{[]byte("4711"), []byte("80808080"), d7.Seed(), s1.Seed()} {
		if bytes.Contains(b, secret) {
			t.Fatalf("the file holds a secret in the clear: %q", secret)
		}
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}

	x, key, err := p.SignIn("supervisor.S1", "80808080")
	if err != nil || x.Role != tablebus.RoleSupervisor || !key.Equal(s1) {
		t.Fatalf("the supervisor signs in: %+v %v", x, err)
	}
	if _, _, err := p.SignIn("dealer.D9", "4711"); !errors.Is(err, ErrUnknown) {
		t.Fatalf("an unknown id: %v", err)
	}
	// Four wrong PINs, then the right one: the count starts again.
	for i := range 4 {
		_, _, err := p.SignIn("dealer.D7", "0000")
		var w *WrongPIN
		if !errors.As(err, &w) || w.Left != MaxTries-1-i || errors.Is(err, ErrLocked) {
			t.Fatalf("wrong PIN %d: %v", i+1, err)
		}
	}
	if x, key, err := p.SignIn("dealer.D7", "4711"); err != nil || x.Lang != "es" || !key.Equal(d7) {
		t.Fatalf("the right PIN after four wrong ones: %v", err)
	}
	// Five wrong in a row lock, across a restart, even for the right PIN.
	for i := range MaxTries {
		_, _, err = p.SignIn("dealer.D7", "1111")
		if i < MaxTries-1 && errors.Is(err, ErrLocked) {
			t.Fatalf("locked after %d", i+1)
		}
	}
	if !errors.Is(err, ErrLocked) || err.Error() != "terminal: wrong PIN for dealer.D7: locked after 5 wrong PINs; a supervisor unlocks it" {
		t.Fatalf("the fifth wrong PIN: %v", err)
	}
	p, err = OpenPeople(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.SignIn("dealer.D7", "4711"); !errors.Is(err, ErrLocked) {
		t.Fatalf("the right PIN once locked, after a restart: %v", err)
	}
	if l := p.List(); len(l) != 2 || !l[0].Locked || l[0].Failed != 5 || l[0].Check != nil {
		t.Fatalf("list: %+v", l)
	}
	if err := p.Unlock("dealer.D7"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.SignIn("dealer.D7", "4711"); err != nil {
		t.Fatalf("unlocked: %v", err)
	}
	if err := p.SetLang("dealer.D7", "fr"); err == nil {
		t.Fatal("a language without a catalog")
	}
	if err := p.SetLang("dealer.D7", "en"); err != nil || p.List()[0].Lang != "en" {
		t.Fatalf("language: %v", err)
	}

	// A damaged file is refused, naming it.
	os.WriteFile(path, bytes.Replace(b, []byte(`"role": "dealer"`), []byte(`"role": "boss"`), 1), 0o600)
	if _, err := OpenPeople(path); err == nil || !strings.Contains(err.Error(), `role "boss"`) {
		t.Fatalf("a bad role: %v", err)
	}
}

// TestPeopleBesideADaemon: `sabot dealers unlock` and `add` write the file a running daemon
// holds open; the daemon takes the change at its next sign-in, and its own next write keeps it.
func TestPeopleBesideADaemon(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dealers.json")
	daemon, err := OpenPeople(path)
	if err != nil {
		t.Fatal(err)
	}
	_, d7, _ := ed25519.GenerateKey(nil)
	_, d8, _ := ed25519.GenerateKey(nil)
	if err := daemon.Add("dealer.D7", tablebus.RoleDealer, "es", "4711", d7, cheap); err != nil {
		t.Fatal(err)
	}
	for range MaxTries {
		daemon.SignIn("dealer.D7", "0000")
	}
	cli, err := OpenPeople(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := cli.Unlock("dealer.D7"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := daemon.SignIn("dealer.D7", "4711"); err != nil {
		t.Fatalf("the daemon after the unlock beside it: %v", err)
	}
	if err := cli.Add("dealer.D8", tablebus.RoleDealer, "en", "8888", d8, cheap); err != nil {
		t.Fatal(err)
	}
	if err := daemon.SetLang("dealer.D7", "en"); err != nil { // the daemon writes
		t.Fatal(err)
	}
	again, err := OpenPeople(path)
	if err != nil {
		t.Fatal(err)
	}
	l := again.List()
	if len(l) != 2 || l[0].ID != "dealer.D7" || l[0].Lang != "en" || l[0].Locked || l[1].ID != "dealer.D8" {
		t.Fatalf("the file after both wrote: %+v", l)
	}
	if _, _, err := daemon.SignIn("dealer.D8", "8888"); err != nil {
		t.Fatalf("a dealer added beside the daemon: %v", err)
	}
	// A file damaged beside the daemon: nobody signs in on it, and the error names it.
	os.WriteFile(path, []byte("{"), 0o600)
	if _, _, err := daemon.SignIn("dealer.D7", "4711"); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("a damaged file: %v", err)
	}
}

// BenchmarkSignIn measures one PIN's derivation with DefaultKDF: the time a sign-in, or a
// supervisor's approval, takes before the command is signed.
func BenchmarkSignIn(b *testing.B) {
	p, err := OpenPeople(filepath.Join(b.TempDir(), "dealers.json"))
	if err != nil {
		b.Fatal(err)
	}
	_, k, _ := ed25519.GenerateKey(nil)
	if err := p.Add("dealer.D7", tablebus.RoleDealer, "en", "4711", k, DefaultKDF); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := p.SignIn("dealer.D7", "4711"); err != nil {
			b.Fatal(err)
		}
	}
}
