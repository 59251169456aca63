package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/keystore"
)

func init() {
	addCommand(command{name: "keys", summary: "signing keys and the root-signed keyring (new, entry, sign, show)", run: runKeys})
}

var keysSubs = map[string]func(context.Context, []string, io.Reader, io.Writer, io.Writer) error{
	"new":   keysNew,
	"entry": keysEntry,
	"sign":  keysSign,
	"show":  keysShow,
}

func runKeys(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return subcommand(ctx, "keys", keysSubs, args, stdin, stdout, stderr)
}

// keysNew makes a key pair: the floor's root (on an offline machine), a table daemon's, or a
// dealer's or supervisor's command key.
func keysNew(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("keys new", "--out FILE.key", stderr)
	out := fs.String("out", "", "the private key file to write (PEM PKCS #8, mode 0600); FILE.pub gets the public key")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	priv, err := tablebus.NewKey()
	if err != nil {
		return err
	}
	if err := tablebus.WritePrivateKey(*out, priv); err != nil {
		return err
	}
	pub := priv.Public().(ed25519.PublicKey)
	pubPath := strings.TrimSuffix(*out, ".key") + ".pub"
	if err := tablebus.WritePublicKey(pubPath, pub); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "key %s written to %s (public key %s in %s)\n", tablebus.KeyIDOf(pub), *out, tablebus.EncodePub(pub), pubPath)
	return nil
}

// keysEntry prints a keyring entry for a public key, one JSON line, for `keys sign`.
func keysEntry(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("keys entry", "--pub FILE.pub (--table T | --role dealer|supervisor --name NAME [--table T|*] | --controller ID) [--not-before T] [--not-after T]", stderr)
	pubPath := fs.String("pub", "", "the public key (keys new wrote it)")
	table := fs.String("table", "", "a table daemon's key: its table; a command key: the table it may command (default *, every table)")
	role := fs.String("role", "", "a command key: dealer or supervisor")
	name := fs.String("name", "", "a command key: who holds it (recorded with manual cards and voids), e.g. dealer.D7")
	controller := fs.String("controller", "", "a progressive controller's key: its id, e.g. progressive.P1 (sabot progressive serve)")
	nb := fs.String("not-before", "", "valid from (RFC 3339; default now)")
	na := fs.String("not-after", "", "valid until (RFC 3339; default: until revoked)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *pubPath == "" || fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	pub, err := tablebus.ReadPublicKey(*pubPath)
	if err != nil {
		return err
	}
	e := tablebus.KeyEntry{Kid: tablebus.KeyIDOf(pub), Pub: tablebus.EncodePub(pub), Table: *table, NotBefore: time.Now().UTC().Truncate(time.Second)}
	if *controller != "" {
		if err := tablebus.ValidConsumer(*controller); err != nil {
			return fmt.Errorf("keys entry: --controller: %w", err)
		}
		e.Use, e.Table, e.Name = tablebus.UseProgressive, "*", *controller
	} else if *role == "" {
		e.Use = tablebus.UseEvents
		if err := tablebus.ValidTable(*table); err != nil {
			return fmt.Errorf("keys entry: a table key needs --table: %w", err)
		}
	} else {
		e.Use, e.Role, e.Name = tablebus.UseCommands, *role, *name
		if e.Table == "" {
			e.Table = "*"
		}
	}
	if *nb != "" {
		if e.NotBefore, err = time.Parse(time.RFC3339, *nb); err != nil {
			return fmt.Errorf("keys entry: --not-before: %w", err)
		}
	}
	if *na != "" {
		t, err := time.Parse(time.RFC3339, *na)
		if err != nil {
			return fmt.Errorf("keys entry: --not-after: %w", err)
		}
		e.NotAfter = &t
	}
	b, _ := json.Marshal(e)
	fmt.Fprintf(stdout, "%s\n", b)
	return nil
}

// keysSign signs a keyring with the root key, from entries (one JSON line each).
func keysSign(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("keys sign", "--root root.key --version N --entries FILE [--revoke KID,…] --out keyring.json", stderr)
	rootPath := fs.String("root", "", "the floor's root private key")
	version := fs.Uint64("version", 0, "the keyring's version: higher than the one in use")
	entries := fs.String("entries", "", "the keys, one JSON entry a line (keys entry prints them)")
	revoke := fs.String("revoke", "", "key ids to revoke (consumers alarm on them)")
	out := fs.String("out", "", "the keyring file to write")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *rootPath == "" || *entries == "" || *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	root, err := tablebus.ReadPrivateKey(*rootPath)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(*entries)
	if err != nil {
		return err
	}
	k := tablebus.Keyring{Version: *version, Issued: time.Now().UTC().Truncate(time.Second)}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var e tablebus.KeyEntry
		d := json.NewDecoder(strings.NewReader(line))
		d.DisallowUnknownFields()
		if err := d.Decode(&e); err != nil {
			return fmt.Errorf("keys sign: %s line %d: %w", *entries, n, err)
		}
		k.Keys = append(k.Keys, e)
	}
	for _, r := range strings.Split(*revoke, ",") {
		if r = strings.TrimSpace(r); r != "" {
			k.Revoked = append(k.Revoked, r)
		}
	}
	kr, err := tablebus.SignKeyring(k, root)
	if err != nil {
		return err
	}
	if err := keystore.WriteKeyring(*out, kr); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s written to %s\n", kr, *out)
	return nil
}

// keysShow checks a keyring and lists its keys.
func keysShow(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("keys show", "[--root root.pub] keyring.json", stderr)
	rootPath := fs.String("root", "", "the root's public key to check the keyring against (default: the root it names)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	var root ed25519.PublicKey
	if *rootPath != "" {
		var err error
		if root, err = tablebus.ReadPublicKey(*rootPath); err != nil {
			return err
		}
	}
	kr, err := keystore.ReadKeyring(fs.Arg(0), root)
	if err != nil {
		return err
	}
	checked := "signed by the root it names (give --root to check it is yours)"
	if root != nil {
		checked = "signed by " + *rootPath
	}
	fmt.Fprintf(stdout, "%s, issued %s, %s\n", kr, kr.Issued.Format(time.RFC3339), checked)
	for _, e := range kr.Keys {
		who := "table " + e.Table
		if e.Use == tablebus.UseCommands {
			who = fmt.Sprintf("%s %s, tables %s", e.Role, e.Name, e.Table)
		}
		until := "until revoked"
		if e.NotAfter != nil {
			until = "until " + e.NotAfter.Format(time.RFC3339)
		}
		fmt.Fprintf(stdout, "  %s  %-8s %s, from %s %s\n", e.Kid, e.Use, who, e.NotBefore.Format(time.RFC3339), until)
	}
	for _, k := range kr.Revoked {
		fmt.Fprintf(stdout, "  %s  REVOKED\n", k)
	}
	return nil
}
