package main

// The dealer terminal runs inside the daemon: it reads the table as the daemon journals it (an
// outbox observer, the open shoe primed from the journal), so that it offers what the shoe
// machine and the engine take now without a second copy of their state; but every command it
// sends goes out over the broker on a connection of its own, with a dealer account, signed by
// the signed-in person's key, exactly as `sabot command` sends one: the daemon checks it as it
// checks any other (CommandGuard), and a terminal could run on another machine unchanged.

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sabot-tables/sabot/cmd/internal/floor"
	"github.com/sabot-tables/sabot/cmd/internal/terminal"
	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/baccarat"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/keystore"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
	"github.com/sabot-tables/sabot/tablebus/outbox"
)

// termOptions are the dealer terminal's settings.
type termOptions struct {
	addr    string
	dealers string
	idle    time.Duration
	seats   int
	user    string // its broker account (a dealer's); the embedded broker makes one
	pass    string
}

func addTerminalFlags(fs *flag.FlagSet, o *termOptions) {
	fs.StringVar(&o.addr, "terminal", "", "address of the dealer terminal, the croupier's touch screen, e.g. 127.0.0.1:8081 (empty: off)")
	fs.StringVar(&o.dealers, "dealers", "", "the dealers and supervisors who sign in at the terminal (sabot dealers add); empty with development keys: made beside them")
	fs.DurationVar(&o.idle, "terminal-idle", 10*time.Minute, "the terminal signs the dealer out after this long without a tap")
	fs.IntVar(&o.seats, "terminal-seats", 7, "the boxes the terminal offers bets on")
	fs.StringVar(&o.user, "terminal-mqtt-user", "", "the terminal's broker account, a dealer's (password from SABOT_TERMINAL_MQTT_PASSWORD); the embedded broker makes one")
}

// Development people, beside the development keys: their PINs are printed at start.
const (
	devDealerPIN     = "1234"
	devSupervisorPIN = "5678"
)

// termDeps is what the terminal is given of the daemon.
type termDeps struct {
	o      *options
	log    *slog.Logger
	j      *journal.Journal
	ob     *outbox.Outbox
	obs    *outbox.Observer
	m      *shoe.Machine
	eng    games.Engine
	proc   shoe.Procedure
	kr     *tablebus.Keyring
	url    string
	family string
}

// dealerTerminal is the terminal's running parts.
type dealerTerminal struct {
	t      *terminal.Terminal
	srv    *http.Server
	ln     net.Listener
	client *mqttbus.Client
	obs    *outbox.Observer
	log    *slog.Logger
	topic  string // the table's command topic

	mu      sync.Mutex
	waiting map[string]chan tablebus.Reply
}

// newTerminal opens the people file, connects to the broker and binds the terminal's port.
func newTerminal(ctx context.Context, d termDeps) (*dealerTerminal, error) {
	o := d.o
	log := d.log.With("component", "terminal")
	people, err := openPeople(o, log)
	if err != nil {
		return nil, err
	}
	for _, err := range people.CheckKeyring(d.kr, o.table, time.Now()) {
		log.Error("a person of the terminal cannot sign commands", "err", err)
	}
	dt := &dealerTerminal{obs: d.obs, log: log, topic: tablebus.Topics{Table: o.table}.Commands(), waiting: map[string]chan tablebus.Reply{}}
	var limits []games.Limit
	spots := []string{}
	if l, ok := d.eng.(games.Layout); ok {
		limits, spots = l.Limits(), l.Spots()
	}
	// The chemin de fer bank as the engine holds it now (restored from the journal): read
	// before the shoe loop runs, the table's events keep it since.
	var bank json.RawMessage
	if b, ok := d.eng.(interface{ Bank() *baccarat.Bank }); ok && b.Bank() != nil {
		if bank, err = tablebus.DetailOf(b.Bank()); err != nil {
			return nil, err
		}
	}
	t, err := terminal.New(terminal.Options{
		Table: o.table, Game: o.game, Family: d.family, Seats: o.term.seats,
		Proc:  terminal.Procedure{Total: d.proc.Total(), CutMinEnd: d.proc.CutMinEnd, BehindMin: d.proc.BehindMin, BehindMax: d.proc.BehindMax},
		Spots: spots, Limits: limits, Closed: d.m.Closed(), People: people, Send: dt.send, Idle: o.term.idle, Logger: d.log, Sim: o.sim, Shuffler: o.shufflerKind, Bank: bank,
		OnLock: func(id string) {
			// The lock is the table's own observation, journaled and published for surveillance.
			if err := d.ob.Fault(context.WithoutCancel(ctx), "dealer-locked",
				fmt.Sprintf("%s locked at the dealer terminal after %d wrong PINs; a supervisor unlocks it", id, terminal.MaxTries)); err != nil {
				log.Error("journaling a lock", "err", err)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	dt.t = t
	if err := dt.prime(ctx, d.j); err != nil {
		log.Warn("the terminal starts without the open shoe's history", "err", err)
	}
	client, err := mqttbus.Connect(ctx, mqttbus.Options{URL: d.url, ClientID: "sabotd-terminal-" + o.table, Username: o.term.user,
		Password: o.term.pass, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("terminal: %w", err)
	}
	dt.client = client
	topics := tablebus.Topics{Table: o.table}
	if err := client.Subscribe(ctx, topics.Replies(), 1, dt.reply); err != nil {
		client.Close()
		return nil, err
	}
	var hosts []string
	for _, h := range strings.Split(o.ops.httpHosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	art := o.ops.art
	if art == nil {
		if art, err = floor.LoadArt(o.ops.cardArt); err != nil {
			client.Close()
			return nil, err
		}
	}
	srv, err := terminal.NewServer(terminal.ServerOptions{Terminal: t, Art: art, Hosts: hosts, Logger: log})
	if err != nil {
		client.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", o.term.addr)
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("dealer terminal: %w (use another --terminal address)", err)
	}
	dt.ln = ln
	dt.srv = &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	log.Info("dealer terminal listening", "url", "http://"+ln.Addr().String()+"/", "people", people.Path())
	return dt, nil
}

// openPeople opens --dealers; with development keys, a development file beside them holds a
// dealer and a supervisor whose keys are the development ones, with PINs said in the log.
func openPeople(o *options, log *slog.Logger) (*terminal.People, error) {
	path := o.term.dealers
	dev := o.key == "" && o.keyring == ""
	if path == "" && !dev {
		return nil, errors.New("terminal: give --dealers (sabot dealers add) with --key and --keyring")
	}
	dir := filepath.Join(filepath.Dir(o.journal), "keys")
	if path == "" {
		path = filepath.Join(dir, "dealers.json")
	}
	p, err := terminal.OpenPeople(path)
	if err != nil {
		return nil, err
	}
	if !dev || len(p.List()) > 0 {
		return p, nil
	}
	for _, x := range []struct{ file, id, role, pin string }{
		{keystore.DevDealer, "dealer.dev", tablebus.RoleDealer, devDealerPIN},
		{keystore.DevSupervisor, "supervisor.dev", tablebus.RoleSupervisor, devSupervisorPIN},
	} {
		priv, err := tablebus.ReadPrivateKey(filepath.Join(dir, x.file))
		if err != nil {
			return nil, err
		}
		if err := p.Add(x.id, x.role, games.English, x.pin, priv, terminal.DefaultKDF); err != nil {
			return nil, err
		}
	}
	log.Warn("development people at the dealer terminal (not for a casino floor)", "dealer", "dealer.dev", "dealer_pin", devDealerPIN,
		"supervisor", "supervisor.dev", "supervisor_pin", devSupervisorPIN, "file", path)
	return p, nil
}

// prime applies the last shoe's events from the journal: the terminal stands where the table
// stands.
func (dt *dealerTerminal) prime(ctx context.Context, j *journal.Journal) error {
	shoes, err := j.Shoes(ctx)
	if err != nil || len(shoes) == 0 {
		return err
	}
	first, last, err := j.ShoeRange(ctx, shoes[len(shoes)-1])
	if err != nil {
		return err
	}
	return j.Range(ctx, first, last, func(r journal.Record) error {
		e, err := tablebus.Decode(r.Secure)
		if err != nil {
			return err
		}
		dt.t.Apply(e)
		return nil
	})
}

// send publishes a sealed command and waits for the daemon's reply to it.
func (dt *dealerTerminal) send(ctx context.Context, payload []byte, id string) (tablebus.Reply, error) {
	ch := make(chan tablebus.Reply, 1)
	dt.mu.Lock()
	dt.waiting[id] = ch
	dt.mu.Unlock()
	defer func() {
		dt.mu.Lock()
		delete(dt.waiting, id)
		dt.mu.Unlock()
	}()
	if err := dt.client.Publish(ctx, dt.topic, payload, 1, false); err != nil {
		return tablebus.Reply{}, err
	}
	select {
	case r := <-ch:
		return r, nil
	case <-ctx.Done():
		return tablebus.Reply{}, fmt.Errorf("no reply to command %s: %w", id, ctx.Err())
	}
}

func (dt *dealerTerminal) reply(m mqttbus.Message) {
	var r tablebus.Reply
	if json.Unmarshal(m.Payload, &r) != nil || r.ID == "" {
		return
	}
	dt.mu.Lock()
	ch := dt.waiting[r.ID]
	dt.mu.Unlock()
	if ch != nil {
		select {
		case ch <- r:
		default:
		}
	}
}

// run feeds the terminal from the outbox and serves its page until ctx is done.
func (dt *dealerTerminal) run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		dt.t.Run(ctx)
	}()
	go func() {
		defer wg.Done()
		dt.srv.BaseContext = func(net.Listener) context.Context { return ctx }
		if err := dt.srv.Serve(dt.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			dt.log.Error("dealer terminal stopped", "err", err)
		}
	}()
	go func() {
		defer wg.Done()
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		dt.srv.Shutdown(sctx)
	}()
	defer func() {
		wg.Wait()
		dt.client.Close()
	}()
	for {
		e, err := dt.obs.Next(ctx)
		if err != nil {
			return nil
		}
		dt.t.Apply(e)
	}
}

// terminalAccount gives the terminal an account of the embedded broker, a dealer's, with a
// password made now.
func terminalAccount(o *options) (name, pass string) {
	pw := make([]byte, 18)
	rand.Read(pw)
	return "dealer.terminal-" + o.table, base64.RawURLEncoding.EncodeToString(pw)
}
