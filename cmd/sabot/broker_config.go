package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sabot-tables/sabot/tablebus/access"
	"github.com/sabot-tables/sabot/tablebus/brokerconf"
)

func init() {
	addCommand(command{name: "broker-config", summary: "a site mosquitto's configuration for the table bus: accounts, ACLs, TLS (write, check)", run: runBrokerConfig})
}

var brokerConfigSubs = map[string]func(context.Context, []string, io.Reader, io.Writer, io.Writer) error{
	"write": brokerConfigWrite,
	"check": brokerConfigCheck,
}

func runBrokerConfig(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return subcommand(ctx, "broker-config", brokerConfigSubs, args, stdin, stdout, stderr)
}

// accountFlags collects a repeated flag.
type accountFlags []string

func (l *accountFlags) String() string     { return strings.Join(*l, ",") }
func (l *accountFlags) Set(s string) error { *l = append(*l, s); return nil }

func brokerConfigWrite(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("broker-config write", "--dir DIR --account NAME:ROLE … [--listen HOST:PORT] [--persistence DIR] [--tls --host NAME,…]", stderr)
	dir := fs.String("dir", "", "where to write mosquitto.conf, acl, passwd, accounts (and the certificates): e.g. /etc/mosquitto/sabot")
	listen := fs.String("listen", "0.0.0.0:1883", "the listener (8883 is usual with --tls)")
	pers := fs.String("persistence", "/var/lib/mosquitto/", "mosquitto's persistence directory (writable by the user mosquitto)")
	useTLS := fs.Bool("tls", false, "mutual TLS: a CA, the broker's certificate and one per account (its CN is the account); no passwords")
	hosts := fs.String("host", "localhost,127.0.0.1", "with --tls: the broker's host names and addresses")
	var accts accountFlags
	fs.Var(&accts, "account", "an account NAME:ROLE (repeat): T1:table, engine.E1:engine, surveillance.S1:surveillance, display.lobby:display, dealer.D7:dealer")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *dir == "" || len(accts) == 0 || fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	var specs []brokerconf.Spec
	for _, a := range accts {
		name, r, ok := strings.Cut(a, ":")
		role, err := access.ParseRole(r)
		if !ok || err != nil {
			return fmt.Errorf("broker-config: --account %q: want NAME:ROLE with ROLE one of %v", a, access.Roles)
		}
		s := brokerconf.Spec{Account: access.Account{Name: name, Role: role}}
		if !*useTLS {
			pw := make([]byte, 18)
			rand.Read(pw)
			s.Password = base64.RawURLEncoding.EncodeToString(pw)
		}
		specs = append(specs, s)
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}
	if err := brokerconf.Write(abs, brokerconf.Config{Dir: abs, Listen: *listen, TLS: *useTLS, Persistence: *pers}, specs); err != nil {
		return err
	}
	if *useTLS {
		if err := brokerconf.MakeCA(abs, "Sabot table bus CA"); err != nil {
			return err
		}
		if err := brokerconf.MakeCert(abs, "server", strings.Split(*hosts, ",")[0], true, strings.Split(*hosts, ",")); err != nil {
			return err
		}
		for _, s := range specs {
			if err := brokerconf.MakeCert(abs, s.Name, s.Name, false, nil); err != nil {
				return err
			}
		}
		fmt.Fprintf(stdout, "wrote %s: mosquitto.conf, acl, accounts, ca.crt, server.crt/.key and a certificate per account (<account>.crt/.key)\n", abs)
	} else {
		fmt.Fprintf(stdout, "wrote %s: mosquitto.conf, acl, passwd, accounts. The passwords (shown once; give each to its daemon or consumer as SABOT_MQTT_PASSWORD):\n", abs)
		for _, s := range specs {
			fmt.Fprintf(stdout, "  %-24s %-13s %s\n", s.Name, s.Role, s.Password)
		}
	}
	fmt.Fprintf(stdout, "then: sabot broker-config check %s && mosquitto -c %s\n", filepath.Join(abs, brokerconf.ConfFile), filepath.Join(abs, brokerconf.ConfFile))
	return nil
}

// brokerConfigCheck checks, before mosquitto starts (ExecStartPre), that its persistence
// directory is writable by the user it runs as: otherwise every save fails and persistence is
// silently off.
func brokerConfigCheck(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("broker-config check", "[--user mosquitto] mosquitto.conf", stderr)
	user := fs.String("user", "mosquitto", "the user mosquitto runs as")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	conf, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("broker-config: %w", err)
	}
	dir := brokerconf.Persistence(conf)
	if dir == "" {
		return fmt.Errorf("broker-config: %s: persistence is off: a broker restart would lose the queues (set persistence true)", fs.Arg(0))
	}
	if err := brokerconf.CheckPersistence(dir, *user); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "persistence in %s: writable by %s\n", dir, *user)
	return nil
}
