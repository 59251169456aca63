package terminal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/argon2"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/tablebus"
)

// The people of a terminal: every dealer and supervisor who may sign in at it, in one file
// (--dealers), mode 0600. Each person's command key (the Ed25519 key the floor's keyring lists
// under their name and role) is kept sealed under their PIN: the PIN goes through Argon2id
// (golang.org/x/crypto/argon2, RFC 9106) with the person's own salt; the first half of what
// it derives checks the PIN (only its SHA-256 is kept), the second is the AES-256-GCM key of
// the private key. Neither the PIN nor the key is ever written in the clear, and the key exists
// in memory only while its owner is signed in (or for the one command a supervisor approves).
// Five wrong PINs in a row lock the person until a supervisor unlocks them (MaxTries).

// MaxTries is how many wrong PINs in a row lock a person.
const MaxTries = 5

// KDF are the Argon2id parameters a PIN is derived with (RFC 9106 §4: one pass over 64 MiB is
// its second recommended option; two passes over 32 MiB cost the same time with half the
// memory a sign-in holds).
type KDF struct {
	Time    uint32 `json:"time"`
	Memory  uint32 `json:"memory"` // KiB
	Threads uint8  `json:"threads"`
}

// DefaultKDF is what new people are sealed with: about 0.1 s a try on the table's machine.
var DefaultKDF = KDF{Time: 2, Memory: 32 << 10, Threads: 1}

// Person is one dealer or supervisor of the file.
type Person struct {
	ID     string `json:"id"`   // the name the keyring gives the key, e.g. "dealer.D7"
	Role   string `json:"role"` // tablebus.RoleDealer or RoleSupervisor
	Lang   string `json:"lang"` // the guidance's language (games.Languages)
	Pub    []byte `json:"pub"`  // the command key's public half: the keyring must list it
	KDF    KDF    `json:"kdf"`
	Salt   []byte `json:"salt"`
	Check  []byte `json:"check"`  // SHA-256 of the first 32 bytes derived
	Sealed []byte `json:"sealed"` // nonce ‖ AES-256-GCM(the key's 32-byte seed)
	Failed int    `json:"failed,omitempty"`
	Locked bool   `json:"locked,omitempty"`
}

type peopleFile struct {
	V      int      `json:"v"`
	People []Person `json:"people"`
}

// People is the file of a terminal's people. Its methods are safe for concurrent use. Each
// reads the file again if another process replaced it since (`sabot dealers add` or `unlock`
// beside a running daemon), so that the change takes effect and the daemon's next write does
// not undo it.
type People struct {
	path string
	mu   sync.Mutex
	f    peopleFile
	seen os.FileInfo // the file as last read or written: nil, none yet
	kdf  sync.Mutex  // one derivation at a time: a burst of tries cannot exhaust memory
}

// Errors of signing in; callers branch on them (errors.Is).
var (
	ErrUnknown  = errors.New("terminal: no such dealer or supervisor")
	ErrWrongPIN = errors.New("terminal: wrong PIN")
	ErrLocked   = errors.New("terminal: locked after too many wrong PINs")
)

// WrongPIN is the error of a wrong PIN: how many tries are left before the lock (0: locked now).
type WrongPIN struct {
	ID   string
	Left int
}

func (e *WrongPIN) Error() string {
	if e.Left == 0 {
		return fmt.Sprintf("terminal: wrong PIN for %s: locked after %d wrong PINs; a supervisor unlocks it", e.ID, MaxTries)
	}
	return fmt.Sprintf("terminal: wrong PIN for %s: %d tries left", e.ID, e.Left)
}

// Unwrap says what the error is: ErrWrongPIN, and ErrLocked once it locked the person.
func (e *WrongPIN) Unwrap() []error {
	if e.Left == 0 {
		return []error{ErrWrongPIN, ErrLocked}
	}
	return []error{ErrWrongPIN}
}

// OpenPeople reads the file at path; a file that does not exist is an empty one, made on the
// first Add.
func OpenPeople(path string) (*People, error) {
	p := &People{path: path, f: peopleFile{V: 1}}
	if err := p.fresh(); err != nil {
		return nil, err
	}
	return p, nil
}

// fresh reads the file again if it is not the one last read or written (replaced, or changed
// in place); the caller holds p.mu, or is OpenPeople. A file that no longer reads keeps the
// state as it was and is an error: nobody signs in on a damaged file.
func (p *People) fresh() error {
	fi, err := os.Stat(p.path)
	if errors.Is(err, os.ErrNotExist) && p.seen == nil {
		return nil
	}
	if err != nil {
		return fmt.Errorf("terminal: %w", err)
	}
	if p.seen != nil && os.SameFile(fi, p.seen) && fi.ModTime().Equal(p.seen.ModTime()) && fi.Size() == p.seen.Size() {
		return nil
	}
	b, err := os.ReadFile(p.path)
	if err != nil {
		return fmt.Errorf("terminal: %w", err)
	}
	var f peopleFile
	if err := strictJSON(b, &f); err != nil {
		return fmt.Errorf("terminal: %s: %w", p.path, err)
	}
	if f.V != 1 {
		return fmt.Errorf("terminal: %s: version %d, want 1", p.path, f.V)
	}
	for _, x := range f.People {
		if err := x.valid(); err != nil {
			return fmt.Errorf("terminal: %s: %w", p.path, err)
		}
	}
	p.f, p.seen = f, fi
	return nil
}

func (x Person) valid() error {
	switch {
	case x.ID == "" || strings.ContainsAny(x.ID, " \t\n/"):
		return fmt.Errorf("person %q: an id is a name without spaces", x.ID)
	case x.Role != tablebus.RoleDealer && x.Role != tablebus.RoleSupervisor:
		return fmt.Errorf("person %s: role %q, want %s or %s", x.ID, x.Role, tablebus.RoleDealer, tablebus.RoleSupervisor)
	case !slices.Contains(games.Languages(), x.Lang):
		return fmt.Errorf("person %s: language %q, want one of %s", x.ID, x.Lang, strings.Join(games.Languages(), ", "))
	case len(x.Pub) != ed25519.PublicKeySize:
		return fmt.Errorf("person %s: no public key", x.ID)
	case x.KDF.Time == 0 || x.KDF.Memory < 8 || x.KDF.Threads == 0 || len(x.Salt) < 16 || len(x.Check) != sha256.Size || len(x.Sealed) < 12+32+16:
		return fmt.Errorf("person %s: damaged: its PIN and key cannot be checked", x.ID)
	}
	return nil
}

// Path returns the file's path.
func (p *People) Path() string { return p.path }

// List returns every person, without what is sealed.
func (p *People) List() []Person {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fresh() // a file that no longer reads: the list as last read
	out := make([]Person, len(p.f.People))
	for i, x := range p.f.People {
		out[i] = Person{ID: x.ID, Role: x.Role, Lang: x.Lang, Pub: x.Pub, Failed: x.Failed, Locked: x.Locked}
	}
	return out
}

// ValidPIN says why a PIN is not one: 4 to 12 digits.
func ValidPIN(pin string) error {
	if len(pin) < 4 || len(pin) > 12 || strings.Trim(pin, "0123456789") != "" {
		return errors.New("terminal: a PIN is 4 to 12 digits")
	}
	return nil
}

func derive(pin string, salt []byte, k KDF) (check [32]byte, key []byte) {
	d := argon2.IDKey([]byte(pin), salt, k.Time, k.Memory, k.Threads, 64)
	return sha256.Sum256(d[:32]), d[32:]
}

// Add seals priv under pin for a new person, or replaces a person of that id (a new PIN or
// key), and writes the file.
func (p *People) Add(id, role, lang, pin string, priv ed25519.PrivateKey, k KDF) error {
	if err := ValidPIN(pin); err != nil {
		return err
	}
	x := Person{ID: id, Role: role, Lang: lang, Pub: priv.Public().(ed25519.PublicKey), KDF: k, Salt: make([]byte, 16)}
	rand.Read(x.Salt)
	check, key := derive(pin, x.Salt, k)
	x.Check = check[:]
	gcm, err := newGCM(key)
	if err != nil {
		return err
	}
	nonce := make([]byte, gcm.NonceSize())
	rand.Read(nonce)
	x.Sealed = gcm.Seal(nonce, nonce, priv.Seed(), []byte(id+"\x00"+role))
	if err := x.valid(); err != nil {
		return fmt.Errorf("terminal: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.fresh(); err != nil {
		return err
	}
	f := p.f
	f.People = slices.Clone(f.People)
	if i := slices.IndexFunc(f.People, func(y Person) bool { return y.ID == id }); i >= 0 {
		f.People[i] = x
	} else {
		f.People = append(f.People, x)
	}
	return p.write(f)
}

func newGCM(key []byte) (cipher.AEAD, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("terminal: %w", err)
	}
	return cipher.NewGCM(b)
}

// SignIn checks id's PIN and returns the person and their command key. A wrong PIN counts
// towards the lock (a *WrongPIN); a locked person is refused without a try (ErrLocked).
func (p *People) SignIn(id, pin string) (Person, ed25519.PrivateKey, error) {
	p.mu.Lock()
	if err := p.fresh(); err != nil {
		p.mu.Unlock()
		return Person{}, nil, err
	}
	i := slices.IndexFunc(p.f.People, func(y Person) bool { return y.ID == id })
	if i < 0 {
		p.mu.Unlock()
		return Person{}, nil, fmt.Errorf("%w: %q", ErrUnknown, id)
	}
	x := p.f.People[i]
	p.mu.Unlock()
	if x.Locked {
		return Person{}, nil, fmt.Errorf("%w: %s is locked after %d wrong PINs; a supervisor unlocks it", ErrLocked, id, MaxTries)
	}
	p.kdf.Lock()
	check, key := derive(pin, x.Salt, x.KDF)
	p.kdf.Unlock()

	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.fresh(); err != nil {
		return Person{}, nil, err
	}
	i = slices.IndexFunc(p.f.People, func(y Person) bool { return y.ID == id })
	if i < 0 || !slices.Equal(p.f.People[i].Salt, x.Salt) {
		return Person{}, nil, fmt.Errorf("%w: %q (changed meanwhile)", ErrUnknown, id)
	}
	cur := p.f.People[i]
	if subtle.ConstantTimeCompare(check[:], cur.Check) != 1 {
		cur.Failed++
		cur.Locked = cur.Failed >= MaxTries
		if err := p.put(i, cur); err != nil {
			return Person{}, nil, err
		}
		return Person{}, nil, &WrongPIN{ID: id, Left: max(0, MaxTries-cur.Failed)}
	}
	if cur.Locked { // locked by another try while this one derived
		return Person{}, nil, fmt.Errorf("%w: %s is locked after %d wrong PINs; a supervisor unlocks it", ErrLocked, id, MaxTries)
	}
	gcm, err := newGCM(key)
	if err != nil {
		return Person{}, nil, err
	}
	n := gcm.NonceSize()
	seed, err := gcm.Open(nil, cur.Sealed[:n], cur.Sealed[n:], []byte(cur.ID+"\x00"+cur.Role))
	if err != nil || len(seed) != ed25519.SeedSize || !ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey).Equal(ed25519.PublicKey(cur.Pub)) {
		return Person{}, nil, fmt.Errorf("terminal: %s: the sealed key does not open with the right PIN: the file is damaged", id)
	}
	if cur.Failed > 0 {
		cur.Failed = 0
		if err := p.put(i, cur); err != nil {
			return Person{}, nil, err
		}
	}
	return cur, ed25519.NewKeyFromSeed(seed), nil
}

// Unlock clears a person's wrong PINs.
func (p *People) Unlock(id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.fresh(); err != nil {
		return err
	}
	i := slices.IndexFunc(p.f.People, func(y Person) bool { return y.ID == id })
	if i < 0 {
		return fmt.Errorf("%w: %q", ErrUnknown, id)
	}
	x := p.f.People[i]
	x.Failed, x.Locked = 0, false
	return p.put(i, x)
}

// SetLang keeps a person's language.
func (p *People) SetLang(id, lang string) error {
	if !slices.Contains(games.Languages(), lang) {
		return fmt.Errorf("terminal: language %q, want one of %s", lang, strings.Join(games.Languages(), ", "))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.fresh(); err != nil {
		return err
	}
	i := slices.IndexFunc(p.f.People, func(y Person) bool { return y.ID == id })
	if i < 0 {
		return fmt.Errorf("%w: %q", ErrUnknown, id)
	}
	x := p.f.People[i]
	x.Lang = lang
	return p.put(i, x)
}

// put replaces person i and writes the file; the caller holds p.mu.
func (p *People) put(i int, x Person) error {
	f := p.f
	f.People = slices.Clone(f.People)
	f.People[i] = x
	return p.write(f)
}

// write writes f atomically and durably (a file beside it renamed over it, both synced), then
// takes it as the state; the caller holds p.mu. A lock that did not reach the disk is an error:
// a restart must not forget it.
func (p *People) write(f peopleFile) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("terminal: %w", err)
	}
	dir := filepath.Dir(p.path)
	tmp, err := os.CreateTemp(dir, ".dealers-*")
	if err != nil {
		return fmt.Errorf("terminal: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err == nil {
		if _, err = tmp.Write(append(b, '\n')); err == nil {
			err = tmp.Sync()
		}
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p.path)
	}
	if err != nil {
		return fmt.Errorf("terminal: writing %s: %w", p.path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	p.f = f
	p.seen, _ = os.Stat(p.path) // not found: the next call reads it again
	return nil
}

func strictJSON(b []byte, v any) error {
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("data after the object")
	}
	return nil
}

// CheckKeyring says, for each person, what is wrong with their key in the keyring at time at:
// not listed, revoked, not a commands key for the table, another name or role. A person whose
// key is not theirs in the keyring signs commands the table refuses.
func (p *People) CheckKeyring(kr *tablebus.Keyring, table string, at time.Time) []error {
	var out []error
	for _, x := range p.List() {
		kid := tablebus.KeyIDOf(x.Pub)
		e, _, err := kr.CommandKey(kid, table, at)
		switch {
		case err != nil:
			out = append(out, fmt.Errorf("terminal: %s's key %s: %w", x.ID, kid, err))
		case e.Name != x.ID || e.Role != x.Role:
			out = append(out, fmt.Errorf("terminal: %s (%s)'s key %s is %s (%s) in the keyring", x.ID, x.Role, kid, e.Name, e.Role))
		}
	}
	return out
}
