package tablebus

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Key uses in a keyring.
const (
	UseEvents   = "events"   // a table daemon's key: events, status
	UseCommands = "commands" // a person's or terminal's key: commands to a table
)

// Roles that may sign commands (seed 000: "Cada mesa de juego debe ser atendida por un croupier
// ... supervisada por un jefe de mesa").
const (
	RoleDealer     = "dealer"     // the croupier's terminal
	RoleSupervisor = "supervisor" // the jefe de mesa (pit boss)
)

// KeyEntry is one public key in a keyring.
type KeyEntry struct {
	Kid       string     `json:"kid"`
	Pub       string     `json:"pub"`                 // the raw 32-byte key, unpadded base64url
	Use       string     `json:"use"`                 // UseEvents or UseCommands
	Table     string     `json:"table"`               // the table; for commands "*" means every table
	Role      string     `json:"role,omitempty"`      // commands: RoleDealer or RoleSupervisor
	Name      string     `json:"name,omitempty"`      // commands: who (recorded with manual cards, voids)
	NotBefore time.Time  `json:"not_before"`          // valid from
	NotAfter  *time.Time `json:"not_after,omitempty"` // valid until (none: until revoked)
}

// Keyring is the list of keys a verifier trusts, signed by the floor's offline root key. A newer
// version replaces an older one; rotation adds the next key (with an overlap) before the old one
// expires, so no event is ever signed by a key the consumers do not know yet.
type Keyring struct {
	V       int        `json:"v"`
	Version uint64     `json:"version"`
	Issued  time.Time  `json:"issued"`
	Root    string     `json:"root"` // the root public key, unpadded base64url
	Keys    []KeyEntry `json:"keys"`
	Revoked []string   `json:"revoked,omitempty"` // key ids that must raise an alarm
	Kid     string     `json:"kid,omitempty"`     // the seal's trailer
	Sig     string     `json:"sig,omitempty"`

	raw  []byte
	pubs map[string]ed25519.PublicKey
}

// Raw returns the keyring's signed bytes, as read or as signed.
func (k *Keyring) Raw() []byte { return k.raw }

// RootID returns the key id of the root that signed the keyring.
func (k *Keyring) RootID() string { return k.Kid }

// String describes the keyring.
func (k *Keyring) String() string {
	return fmt.Sprintf("keyring v%d (%d keys, root %s)", k.Version, len(k.Keys), k.Kid)
}

// SignKeyring checks k, fills its root and signs it with the root key.
func SignKeyring(k Keyring, root ed25519.PrivateKey) (*Keyring, error) {
	k.V, k.Kid, k.Sig = SchemaVersion, "", ""
	k.Root = base64.RawURLEncoding.EncodeToString(root.Public().(ed25519.PublicKey))
	if err := k.check(); err != nil {
		return nil, err
	}
	body, err := json.Marshal(k)
	if err != nil {
		return nil, fmt.Errorf("tablebus: keyring: %w", err)
	}
	raw, err := NewSigner(root).Seal(DomainKeyring, "", body)
	if err != nil {
		return nil, err
	}
	return ParseKeyring(raw, root.Public().(ed25519.PublicKey))
}

// ParseKeyring reads a signed keyring strictly and checks its signature under root. With a nil
// root the keyring is checked under the root it names: trust on first use, for development
// only (the caller must then pin that root).
func ParseKeyring(raw []byte, root ed25519.PublicKey) (*Keyring, error) {
	if len(raw) > MaxPayload {
		return nil, fmt.Errorf("tablebus: keyring of %d bytes exceeds %d", len(raw), MaxPayload)
	}
	s, err := ParseSeal(raw, false)
	if err != nil {
		return nil, fmt.Errorf("tablebus: keyring: %w", err)
	}
	var k Keyring
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(&k); err != nil {
		return nil, fmt.Errorf("tablebus: keyring: %w", err)
	}
	if d.More() {
		return nil, errors.New("tablebus: keyring: data after the keyring")
	}
	named, err := base64.RawURLEncoding.Strict().DecodeString(k.Root)
	if err != nil || len(named) != ed25519.PublicKeySize {
		return nil, errors.New("tablebus: keyring: root is not a 32-byte key in base64url")
	}
	if root == nil {
		root = named
	} else if !bytes.Equal(root, named) {
		return nil, fmt.Errorf("%w: the keyring names root %s, the pinned root is %s", ErrUnknownKey, KeyIDOf(named), KeyIDOf(root))
	}
	if err := s.Verify(DomainKeyring, "", root); err != nil {
		return nil, fmt.Errorf("tablebus: keyring: %w", err)
	}
	if err := k.check(); err != nil {
		return nil, err
	}
	k.raw = slices.Clone(raw)
	return &k, nil
}

func (k *Keyring) check() error {
	if k.V != SchemaVersion {
		return fmt.Errorf("tablebus: keyring schema version %d, want %d", k.V, SchemaVersion)
	}
	if k.Version == 0 {
		return errors.New("tablebus: keyring: version must be at least 1")
	}
	k.pubs = map[string]ed25519.PublicKey{}
	for i, e := range k.Keys {
		pub, err := base64.RawURLEncoding.Strict().DecodeString(e.Pub)
		if err != nil || len(pub) != ed25519.PublicKeySize {
			return fmt.Errorf("tablebus: keyring: key %d: pub is not a 32-byte key in base64url", i)
		}
		if KeyIDOf(pub) != e.Kid {
			return fmt.Errorf("tablebus: keyring: key %d: kid %q is not the key's (%s)", i, e.Kid, KeyIDOf(pub))
		}
		if _, dup := k.pubs[e.Kid]; dup {
			return fmt.Errorf("tablebus: keyring: key %s listed twice", e.Kid)
		}
		switch e.Use {
		case UseEvents:
			if err := ValidTable(e.Table); err != nil {
				return fmt.Errorf("tablebus: keyring: key %s: %w", e.Kid, err)
			}
		case UseProgressive:
			if e.Table != "*" {
				return fmt.Errorf("tablebus: keyring: key %s: a progressive controller's key serves every table (\"*\")", e.Kid)
			}
			if e.Name == "" {
				return fmt.Errorf("tablebus: keyring: key %s: a progressive controller's key needs the controller's id", e.Kid)
			}
		case UseCommands:
			if e.Table != "*" {
				if err := ValidTable(e.Table); err != nil {
					return fmt.Errorf("tablebus: keyring: key %s: %w", e.Kid, err)
				}
			}
			if e.Role != RoleDealer && e.Role != RoleSupervisor {
				return fmt.Errorf("tablebus: keyring: key %s: role %q, want %s or %s", e.Kid, e.Role, RoleDealer, RoleSupervisor)
			}
			if e.Name == "" {
				return fmt.Errorf("tablebus: keyring: key %s: a command key needs the name of who holds it", e.Kid)
			}
		default:
			return fmt.Errorf("tablebus: keyring: key %s: use %q, want %s, %s or %s", e.Kid, e.Use, UseEvents, UseCommands, UseProgressive)
		}
		if e.NotAfter != nil && !e.NotAfter.After(e.NotBefore) {
			return fmt.Errorf("tablebus: keyring: key %s: not_after is not after not_before", e.Kid)
		}
		k.pubs[e.Kid] = pub
	}
	for _, r := range k.Revoked {
		// A revocation that names no key id revokes nothing: refuse it rather than let a key
		// the floor meant to revoke go on signing (" KID" from a list with spaces, a typo).
		if len(r) != KeyIDLen || !lowerHex([]byte(r)) {
			return fmt.Errorf("tablebus: keyring: revoked %q is not a key id (16 lowercase hex digits)", r)
		}
	}
	return nil
}

// lookup finds kid for use at time at.
func (k *Keyring) lookup(kid, use string, at time.Time) (KeyEntry, ed25519.PublicKey, error) {
	e, pub, err := k.entry(kid, use)
	if err != nil {
		return e, nil, err
	}
	if err := e.validAt(at); err != nil {
		return e, nil, err
	}
	return e, pub, nil
}

func until(t *time.Time) string {
	if t == nil {
		return ""
	}
	return " until " + t.UTC().Format(time.RFC3339)
}

// TableKey returns the public key kid may sign table's events and status with at time at.
func (k *Keyring) TableKey(kid, table string, at time.Time) (ed25519.PublicKey, error) {
	e, pub, err := k.lookup(kid, UseEvents, at)
	if err != nil {
		return nil, err
	}
	if e.Table != table {
		return nil, fmt.Errorf("%w: key %s belongs to table %s, not %s", ErrKeyNotValid, kid, e.Table, table)
	}
	return pub, nil
}

// CommandKey returns the entry and public key kid may sign commands to table with at time at.
func (k *Keyring) CommandKey(kid, table string, at time.Time) (KeyEntry, ed25519.PublicKey, error) {
	e, pub, err := k.lookup(kid, UseCommands, at)
	if err != nil {
		return KeyEntry{}, nil, err
	}
	if e.Table != "*" && e.Table != table {
		return KeyEntry{}, nil, fmt.Errorf("%w: key %s may command table %s, not %s", ErrKeyNotValid, kid, e.Table, table)
	}
	return e, pub, nil
}

// NewKey returns a fresh Ed25519 key pair.
func NewKey() (ed25519.PrivateKey, error) {
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		return nil, fmt.Errorf("tablebus: generating a key: %w", err)
	}
	return priv, nil
}

// WritePrivateKey writes priv to path as PEM PKCS #8 (readable by openssl), mode 0600, failing
// if the file exists: a key is never overwritten. It is written whole (WriteWhole), so a process
// that lists the directory meanwhile (another daemon making the development keyring) never reads
// a key half written.
func WritePrivateKey(path string, priv ed25519.PrivateKey) error {
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return fmt.Errorf("tablebus: %w", err)
	}
	if err := WriteWhole(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600, false); err != nil {
		return fmt.Errorf("tablebus: writing the key: %w", err)
	}
	return nil
}

// ReadPrivateKey reads an Ed25519 private key written by WritePrivateKey (or openssl genpkey
// -algorithm ed25519).
func ReadPrivateKey(path string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tablebus: reading the key: %w", err)
	}
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("tablebus: %s: not a PEM PRIVATE KEY", path)
	}
	k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("tablebus: %s: %w", path, err)
	}
	priv, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("tablebus: %s: not an Ed25519 key", path)
	}
	return priv, nil
}

// WritePublicKey writes pub to path as PEM PKIX ("PUBLIC KEY").
func WritePublicKey(path string, pub ed25519.PublicKey) error {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return fmt.Errorf("tablebus: %w", err)
	}
	// Whole (WriteWhole): daemons starting together each write the development root's.
	if err := WriteWhole(path, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644, true); err != nil {
		return fmt.Errorf("tablebus: writing the public key: %w", err)
	}
	return nil
}

// ReadPublicKey reads an Ed25519 public key in PEM PKIX form.
func ReadPublicKey(path string) (ed25519.PublicKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tablebus: reading the public key: %w", err)
	}
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != "PUBLIC KEY" {
		return nil, fmt.Errorf("tablebus: %s: not a PEM PUBLIC KEY", path)
	}
	k, err := x509.ParsePKIXPublicKey(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("tablebus: %s: %w", path, err)
	}
	pub, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("tablebus: %s: not an Ed25519 key", path)
	}
	return pub, nil
}

// EncodePub returns a public key as a keyring writes it.
func EncodePub(pub ed25519.PublicKey) string { return base64.RawURLEncoding.EncodeToString(pub) }

// WriteWhole writes data to path with mode perm, whole or not at all: to a temporary file beside
// it, synced, then moved into place, so that another process reading the directory meanwhile
// (daemons making the development keys together) never sees it half written. With replace it
// renames over what is there; without, it fails with an error wrapping fs.ErrExist if path
// exists (link(2), not rename, keeps that promise: a key is never overwritten).
func WriteWhole(path string, data []byte, perm os.FileMode, replace bool) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a link, the name only; after a rename, nothing
	err = f.Chmod(perm)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if replace {
		return os.Rename(tmp, path)
	}
	return os.Link(tmp, path)
}
