// Package keystore loads a table daemon's signing key and the floor's keyring from files, keeps
// watching them for a rotation, and makes development keys for `make run`.
//
// Production: the root key stays offline (`sabot keys root` on an offline machine); each
// table's key is made on its daemon's machine (`sabot keys table`), its public part carried to
// the root's machine, listed in a keyring the root signs (`sabot keys sign`), and the keyring
// installed next to every daemon, which publishes it retained on its keyring topic. Consumers
// pin the root's public key (--root) and take any newer keyring it signed.
//
// Rotation without downtime: make the table's next key, sign a keyring that lists both keys
// (the old one with a not_after a little ahead), install the keyring (the daemon publishes it
// within seconds, and consumers learn the new key), then install the new key file: the daemon
// signs with it from its next event on. A later keyring drops or revokes the old key.
package keystore

import (
	"context"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
)

// Load reads the table's private key and the keyring, checks the keyring under root (nil: the
// root it names) and that it lists the key for table now.
func Load(keyPath, keyringPath string, root ed25519.PublicKey, table string, now time.Time) (*tablebus.Signer, *tablebus.Keyring, error) {
	priv, err := tablebus.ReadPrivateKey(keyPath)
	if err != nil {
		return nil, nil, fmt.Errorf("keystore: %w", err)
	}
	kr, err := ReadKeyring(keyringPath, root)
	if err != nil {
		return nil, nil, err
	}
	s := tablebus.NewSigner(priv)
	if _, err := kr.TableKey(s.KeyID(), table, now); err != nil {
		return nil, nil, fmt.Errorf("keystore: the key %s (%s) cannot sign table %s's events with %s %s: %w", keyPath, s.KeyID(), table, keyringPath, kr, err)
	}
	return s, kr, nil
}

// ReadKeyring reads and checks a keyring file.
func ReadKeyring(path string, root ed25519.PublicKey) (*tablebus.Keyring, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("keystore: %w", err)
	}
	kr, err := tablebus.ParseKeyring(trimNewline(b), root)
	if err != nil {
		return nil, fmt.Errorf("keystore: %s: %w", path, err)
	}
	return kr, nil
}

func trimNewline(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// WriteKeyring writes a keyring file whole (tablebus.WriteWhole), replacing what is there: two processes
// making the development keys at once (a daemon and `sabot progressive serve --dev-keys`) each
// rename a whole keyring.
func WriteKeyring(path string, kr *tablebus.Keyring) error {
	if err := tablebus.WriteWhole(path, append(append([]byte(nil), kr.Raw()...), '\n'), 0o644, true); err != nil {
		return fmt.Errorf("keystore: %w", err)
	}
	return nil
}

// Development key files in a keystore directory.
const (
	DevRoot       = "dev-root.key"
	DevRootPub    = "dev-root.pub"
	DevKeyring    = "keyring.json"
	DevDealer     = "dealer.dev.key"
	DevSupervisor = "supervisor.dev.key"
	// DevProgressive is the development progressive controller's key (progressive.dev).
	DevProgressive = "progressive.dev.key"
)

// TableKeyFile is the file name of a table's key in a keystore directory.
func TableKeyFile(table string) string { return "table-" + table + ".key" }

// Dev returns the table's signer and a keyring from dir, making what is missing: a
// development root, the table's key, a dealer's, a supervisor's and a progressive controller's key, and a keyring (signed
// by the development root) that lists every table key in dir. `make run` and the tests use
// it; a site uses Load with keys made by `sabot keys`.
func Dev(dir, table string) (*tablebus.Signer, *tablebus.Keyring, error) {
	if err := tablebus.ValidTable(table); err != nil {
		return nil, nil, fmt.Errorf("keystore: %w", err)
	}
	s, _, kr, err := dev(dir, table)
	return s, kr, err
}

// DevProgressiveName is the development progressive controller's id.
const DevProgressiveName = "progressive.dev"

// DevController returns the development progressive controller's signer (DevProgressive) and
// the development keyring, made as Dev makes it, listing every table key in dir.
func DevController(dir string) (*tablebus.Signer, *tablebus.Keyring, error) {
	_, p, kr, err := dev(dir, "")
	return p, kr, err
}

func dev(dir, table string) (*tablebus.Signer, *tablebus.Signer, *tablebus.Keyring, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, nil, fmt.Errorf("keystore: %w", err)
	}
	root, err := loadOrMake(filepath.Join(dir, DevRoot))
	if err != nil {
		return nil, nil, nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, DevRootPub)); err != nil {
		if err := tablebus.WritePublicKey(filepath.Join(dir, DevRootPub), root.Public().(ed25519.PublicKey)); err != nil {
			return nil, nil, nil, err
		}
	}
	var signer *tablebus.Signer
	if table != "" {
		priv, err := loadOrMake(filepath.Join(dir, TableKeyFile(table)))
		if err != nil {
			return nil, nil, nil, err
		}
		signer = tablebus.NewSigner(priv)
	}
	rootPub := root.Public().(ed25519.PublicKey)
	prog, err := loadOrMake(filepath.Join(dir, DevProgressive))
	if err != nil {
		return nil, nil, nil, err
	}
	if kr, err := ReadKeyring(filepath.Join(dir, DevKeyring), rootPub); err == nil {
		var terr error
		if signer != nil {
			_, terr = kr.TableKey(signer.KeyID(), table, time.Now())
		}
		_, perr := kr.ProgressiveKey(tablebus.NewSigner(prog).KeyID(), time.Now())
		if terr == nil && perr == nil {
			return signer, tablebus.NewSigner(prog), kr, nil
		}
	}
	// List every key in dir in a new keyring. Daemons starting together each write theirs
	// (the last rename wins), so each lists the directory again after writing and writes
	// again until what it wrote is all there is: the last writer's keyring lists every key.
	var kr *tablebus.Keyring
	var listed []string
	for {
		files, err := filepath.Glob(filepath.Join(dir, "table-*.key"))
		if err != nil {
			return nil, nil, nil, fmt.Errorf("keystore: %w", err)
		}
		sort.Strings(files)
		if kr != nil && slices.Equal(files, listed) {
			break
		}
		if kr, err = writeDevKeyring(dir, root, prog, files); err != nil {
			return nil, nil, nil, err
		}
		listed = files
	}
	return signer, tablebus.NewSigner(prog), kr, nil
}

// writeDevKeyring writes a keyring signed by root listing the table keys in files, the
// development dealer's and supervisor's keys, and prog as the progressive controller.
func writeDevKeyring(dir string, root, prog ed25519.PrivateKey, files []string) (*tablebus.Keyring, error) {
	rootPub := root.Public().(ed25519.PublicKey)
	var version uint64 = 1
	if kr, err := ReadKeyring(filepath.Join(dir, DevKeyring), rootPub); err == nil {
		version = kr.Version + 1
	}
	epoch := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	var keys []tablebus.KeyEntry
	for _, f := range files {
		t := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "table-"), ".key")
		p, err := tablebus.ReadPrivateKey(f)
		if err != nil {
			return nil, fmt.Errorf("keystore: %w", err)
		}
		pub := p.Public().(ed25519.PublicKey)
		keys = append(keys, tablebus.KeyEntry{Kid: tablebus.KeyIDOf(pub), Pub: tablebus.EncodePub(pub), Use: tablebus.UseEvents, Table: t, NotBefore: epoch})
	}
	for _, c := range []struct{ file, role, name string }{{DevDealer, tablebus.RoleDealer, "dealer.dev"}, {DevSupervisor, tablebus.RoleSupervisor, "supervisor.dev"}} {
		p, err := loadOrMake(filepath.Join(dir, c.file))
		if err != nil {
			return nil, err
		}
		pub := p.Public().(ed25519.PublicKey)
		keys = append(keys, tablebus.KeyEntry{Kid: tablebus.KeyIDOf(pub), Pub: tablebus.EncodePub(pub), Use: tablebus.UseCommands, Table: "*", Role: c.role, Name: c.name, NotBefore: epoch})
	}
	ppub := prog.Public().(ed25519.PublicKey)
	keys = append(keys, tablebus.KeyEntry{Kid: tablebus.KeyIDOf(ppub), Pub: tablebus.EncodePub(ppub), Use: tablebus.UseProgressive, Table: "*", Name: DevProgressiveName, NotBefore: epoch})
	kr, err := tablebus.SignKeyring(tablebus.Keyring{Version: version, Issued: time.Now().UTC().Truncate(time.Second), Keys: keys}, root)
	if err != nil {
		return nil, err
	}
	if err := WriteKeyring(filepath.Join(dir, DevKeyring), kr); err != nil {
		return nil, err
	}
	return kr, nil
}

// loadOrMake reads a private key, or makes it if the file does not exist (two processes making
// it at once: one wins, the other reads it).
func loadOrMake(path string) (ed25519.PrivateKey, error) {
	if priv, err := tablebus.ReadPrivateKey(path); err == nil {
		return priv, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("keystore: %w", err)
	}
	priv, err := tablebus.NewKey()
	if err != nil {
		return nil, err
	}
	if err := tablebus.WritePrivateKey(path, priv); err != nil {
		if errors.Is(err, fs.ErrExist) {
			// Written whole and linked into place: the winner's key is complete.
			return tablebus.ReadPrivateKey(path)
		}
		return nil, fmt.Errorf("keystore: %w", err)
	}
	return priv, nil
}

// Watch polls the key and keyring files every interval until ctx is done, and calls onKey or
// onKeyring with what changed, once it is valid: a rotation without stopping the daemon. A
// file that does not verify is reported to onErr and ignored.
func Watch(ctx context.Context, keyPath, keyringPath string, root ed25519.PublicKey, table string, interval time.Duration,
	onKey func(*tablebus.Signer), onKeyring func(*tablebus.Keyring), onErr func(error)) {
	stamp := func(p string) time.Time {
		fi, err := os.Stat(p)
		if err != nil {
			return time.Time{}
		}
		return fi.ModTime()
	}
	keyT, krT := stamp(keyPath), stamp(keyringPath)
	// What is in force now: a new keyring must be newer and keep the key the table signs with
	// (listed, not revoked), or every consumer would refuse the table's next events.
	cur, _ := ReadKeyring(keyringPath, root)
	var kid string
	if s, _, err := Load(keyPath, keyringPath, root, table, time.Now()); err == nil {
		kid = s.KeyID()
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if s := stamp(keyringPath); !s.Equal(krT) {
			krT = s
			kr, err := ReadKeyring(keyringPath, root)
			switch {
			case err != nil:
				onErr(err)
			case cur != nil && kr.Version <= cur.Version:
				onErr(fmt.Errorf("keystore: keyring version %d is not newer than the one in force (%d): refused", kr.Version, cur.Version))
			default:
				if kid != "" {
					if _, err := kr.TableKey(kid, table, time.Now()); err != nil {
						onErr(fmt.Errorf("keystore: the new keyring does not let the table's key %s sign (%w): install the new key first, then a keyring that drops the old", kid, err))
						continue
					}
				}
				cur = kr
				onKeyring(kr)
			}
		}
		if s := stamp(keyPath); !s.Equal(keyT) {
			keyT = s
			signer, _, err := Load(keyPath, keyringPath, root, table, time.Now())
			if err != nil {
				onErr(err)
			} else {
				kid = signer.KeyID()
				onKey(signer)
			}
		}
	}
}

// DevControllerPassword is the development progressive controller's MQTT password on a
// daemon's embedded broker (`make run`), derived from its development key in dir, so that the
// daemon and `sabot progressive serve --dev-keys` agree on it with nothing carried between them.
func DevControllerPassword(dir string) (string, error) {
	priv, err := tablebus.ReadPrivateKey(filepath.Join(dir, DevProgressive))
	if err != nil {
		return "", fmt.Errorf("keystore: %w", err)
	}
	mac := hmac.New(sha256.New, priv.Seed())
	mac.Write([]byte("sabot dev mqtt password"))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:18]), nil
}
