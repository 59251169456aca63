package main

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"strings"

	"github.com/sabot-tables/sabot/cmd/internal/terminal"
	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/tablebus"
)

func init() {
	addCommand(command{name: "dealers", summary: "the dealers and supervisors of a dealer terminal (add, list, unlock)", run: runDealers})
}

var dealersSubs = map[string]func(context.Context, []string, io.Reader, io.Writer, io.Writer) error{
	"add":    dealersAdd,
	"list":   dealersList,
	"unlock": dealersUnlock,
}

func runDealers(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return subcommand(ctx, "dealers", dealersSubs, args, stdin, stdout, stderr)
}

// dealersAdd seals a person's command key under their PIN in the terminal's people file; the
// PIN is read from standard input, twice (typed, or piped).
func dealersAdd(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("dealers add", "--file FILE --key KEY --id ID --role dealer|supervisor [--lang en|es]  (the PIN on standard input, twice)", stderr)
	file := fs.String("file", "", "the people file (sabotd --dealers)")
	keyPath := fs.String("key", "", "the person's command key (sabot keys new); the keyring lists it under --id and --role")
	id := fs.String("id", "", "the person's id: the keyring's name for the key, e.g. dealer.D7")
	role := fs.String("role", tablebus.RoleDealer, "dealer or supervisor")
	lang := fs.String("lang", games.English, "the language of the person's guidance: "+strings.Join(games.Languages(), ", "))
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *file == "" || *keyPath == "" || *id == "" || fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	priv, err := tablebus.ReadPrivateKey(*keyPath)
	if err != nil {
		return err
	}
	fmt.Fprint(stderr, "PIN (4 to 12 digits), then again: ")
	sc := bufio.NewScanner(stdin)
	var pins []string
	for len(pins) < 2 && sc.Scan() {
		pins = append(pins, strings.TrimSpace(sc.Text()))
	}
	fmt.Fprintln(stderr)
	if len(pins) < 2 {
		return fmt.Errorf("dealers add: give the PIN twice on standard input")
	}
	if pins[0] != pins[1] {
		return fmt.Errorf("dealers add: the two PINs differ")
	}
	p, err := terminal.OpenPeople(*file)
	if err != nil {
		return err
	}
	if err := p.Add(*id, *role, *lang, pins[0], priv, terminal.DefaultKDF); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s (%s, %s) added to %s, key %s\n", *id, *role, *lang, *file, tablebus.KeyIDOf(priv.Public().(ed25519.PublicKey)))
	return nil
}

func dealersList(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("dealers list", "--file FILE", stderr)
	file := fs.String("file", "", "the people file (sabotd --dealers)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *file == "" {
		fs.Usage()
		return errUsage
	}
	p, err := terminal.OpenPeople(*file)
	if err != nil {
		return err
	}
	for _, x := range p.List() {
		state := "ok"
		switch {
		case x.Locked:
			state = "LOCKED"
		case x.Failed > 0:
			state = fmt.Sprintf("%d wrong PIN(s)", x.Failed)
		}
		fmt.Fprintf(stdout, "%-20s %-10s %s  key %s  %s\n", x.ID, x.Role, x.Lang, tablebus.KeyIDOf(x.Pub), state)
	}
	return nil
}

func dealersUnlock(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("dealers unlock", "--file FILE --id ID", stderr)
	file := fs.String("file", "", "the people file (sabotd --dealers)")
	id := fs.String("id", "", "whom")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *file == "" || *id == "" {
		fs.Usage()
		return errUsage
	}
	p, err := terminal.OpenPeople(*file)
	if err != nil {
		return err
	}
	if err := p.Unlock(*id); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s unlocked\n", *id)
	return nil
}
