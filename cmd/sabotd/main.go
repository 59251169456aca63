// Command sabotd is the table daemon: it drives the shuffler and the card-reading shoe, applies
// the shoe's rules and the game's (shoe.Machine with a games.Engine), journals every event, and
// publishes the table's feed over MQTT.
//
//	sabotd --sim                      a whole simulated table with an embedded broker (make run)
//	sabotd --mqtt tcp://broker:1883 --shuffler-port /dev/ttyUSB0 --shoe-port /dev/ttyUSB1
//
// `sabotd -h` lists every setting; each can also be given in a --config file as `name = value`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/access"
	"github.com/sabot-tables/sabot/tablebus/broker"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/keystore"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
	"github.com/sabot-tables/sabot/tablebus/outbox"
)

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := onSignals(cancel, os.Stderr, os.Exit, stopDeadline)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			for _, line := range strings.Split(err.Error(), "\n") { // --check-config: a problem a line
				fmt.Fprintln(os.Stderr, "sabotd:", line)
			}
		}
		os.Exit(1)
	}
}

// stopDeadline bounds a clean stop: a daemon still stopping this long after SIGTERM exits with
// its goroutines' stacks on stderr (under systemd, TimeoutStopSec is 20 s). The broker then
// publishes the connection's will, the offline status.
const stopDeadline = 10 * time.Second

// onSignals makes the first SIGINT or SIGTERM a clean stop (cancel: the devices halt, the
// offline status is published) and the second an exit at once, for an operator who will not
// wait; a stop still running after deadline exits too. It returns a function that stops
// listening and returns when its goroutine has.
func onSignals(cancel context.CancelCauseFunc, stderr io.Writer, exit func(int), deadline time.Duration) (stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var first os.Signal
		select {
		case first = <-sigs:
		case <-done:
			return
		}
		cancel(fmt.Errorf("%w (%v)", errSignal, first))
		late := time.NewTimer(deadline)
		defer late.Stop()
		select {
		case s := <-sigs:
			fmt.Fprintf(stderr, "sabotd: %v again while stopping: exiting at once, without the clean stop\n", s)
			exit(1)
		case <-late.C:
			fmt.Fprintf(stderr, "sabotd: still stopping %v after the signal (%v): exiting; the goroutines follow\n", deadline, first)
			pprof.Lookup("goroutine").WriteTo(stderr, 2)
			exit(1)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
		wg.Wait()
	}
}

// errSignal is the cause of a stop by signal.
var errSignal = errors.New("signal")

type options struct {
	config        string
	table         string
	game          string
	rules         string
	decks         int
	limits        string
	options       optionList
	burn          string
	stopCard      int
	journal       string
	mqtt          string
	listen        string
	user, pass    string
	mqttCA        string
	mqttCert      string
	mqttKey       string
	sim           bool
	simSeed       uint64
	simPace       time.Duration
	simMisread    int
	simShoes      int
	shufflerPort  string
	shoePort      string
	shoeKind      string
	camera        string
	visionProfile string
	gpio          struct{ exit, lid, confirm, manual, void, led string }
	simDeck       string
	quiet         bool
	logLevel      string
	ops           opsOptions  // web view, metrics, logs, watchdog (web.go)
	term          termOptions // the dealer terminal (terminal.go)
	simDealer     string
	simStack      []card.Card
	shufflerKind  string
	key           string
	keyring       string
	root          string
	requireAck    string
	brokerDir     string
	brokerAnon    string
	jopt          journalOptions // the journal's start-up check (startcheck.go)
	progPool      string
	progWait      time.Duration
	devAccounts   []broker.Account // the embedded broker's development accounts (the progressive controller's)
}

func parseOptions(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("sabotd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.config, "config", "", "configuration file: one `name = value` per line, names as these flags")
	fs.StringVar(&o.table, "table", "T1", "table id (letters, digits, '-', '_'; at most 32)")
	fs.StringVar(&o.game, "game", "punto-banco", "game id (sabot games list)")
	fs.StringVar(&o.rules, "rules", "", "rule preset (default: the game's)")
	fs.IntVar(&o.decks, "decks", 0, "decks in the shoe (default: the game's, RULES.md §1)")
	fs.StringVar(&o.limits, "limits", "", "bet limits in cents, e.g. player=100-50000,banker=100-50000,tie=100-5000 (seed 003)")
	fs.Var(&o.options, "option", "a game option name=value, repeatable (e.g. tie31=prison, soft17=hit, rake=5%): see sabot games round")
	fs.StringVar(&o.burn, "burn", "", "the start-of-shoe burn: first-card or a number of cards (default: the game's, RULES.md §1)")
	fs.IntVar(&o.stopCard, "stop-card", 0, "where the dealer places the stop card, in cards from the back (default: the game's, RULES.md §1)")
	fs.StringVar(&o.journal, "journal", "", "journal file (default: $STATE_DIRECTORY/<table>.db, or ./var/<table>.db)")
	fs.StringVar(&o.mqtt, "mqtt", "", "broker URL, e.g. tcp://broker:1883; empty starts the embedded broker on --listen")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:1883", "address of the embedded broker (when --mqtt is empty)")
	fs.StringVar(&o.user, "mqtt-user", "", "MQTT user name")
	fs.StringVar(&o.pass, "mqtt-password", "", "MQTT password (prefer the SABOT_MQTT_PASSWORD environment variable)")
	fs.StringVar(&o.mqttCA, "mqtt-ca", "", "mutual TLS: the CA of the broker's certificate (with an ssl:// broker URL)")
	fs.StringVar(&o.mqttCert, "mqtt-cert", "", "mutual TLS: this table's client certificate (its name is the account)")
	fs.StringVar(&o.mqttKey, "mqtt-key", "", "mutual TLS: the client certificate's private key")
	fs.BoolVar(&o.sim, "sim", false, "simulated shuffler and shoe on pseudo-terminals, and a simulated dealer")
	fs.Uint64Var(&o.simSeed, "sim-seed", 0, "simulation seed (0: from the clock)")
	fs.DurationVar(&o.simPace, "sim-pace", 400*time.Millisecond, "simulated dealer: pause between actions")
	fs.IntVar(&o.simMisread, "sim-misread-every", 0, "simulated shoe: every n-th card is unreadable (0: never)")
	fs.IntVar(&o.simShoes, "sim-shoes", 0, "simulation: stop after this many shoes (0: never)")
	fs.StringVar(&o.shufflerPort, "shuffler-port", "", "shuffler serial port, e.g. /dev/ttyUSB0")
	fs.StringVar(&o.shoeKind, "shoe", "", "the shoe: reader (a reading shoe on --shoe-port) or camera (GPIO gate and a reader camera); default reader, camera with --sim")
	fs.StringVar(&o.shoePort, "shoe-port", "", "reading shoe serial port, e.g. /dev/ttyUSB1")
	fs.StringVar(&o.camera, "camera", "", "camera shoe: the reader camera (V4L2 device, e.g. /dev/video0)")
	fs.StringVar(&o.visionProfile, "vision-profile", "", "camera shoe: the vision profile of the deck in use (sabot calibrate vision)")
	fs.StringVar(&o.gpio.exit, "gpio-exit", "GPIO17", "camera shoe: the card-exit gate's GPIO")
	fs.StringVar(&o.gpio.lid, "gpio-lid", "GPIO27", "camera shoe: the lid switch's GPIO")
	fs.StringVar(&o.gpio.confirm, "gpio-confirm", "GPIO22", "camera shoe: the confirm button's GPIO")
	fs.StringVar(&o.gpio.manual, "gpio-manual", "GPIO23", "camera shoe: the manual-entry button's GPIO")
	fs.StringVar(&o.gpio.void, "gpio-void", "GPIO24", "camera shoe: the void button's GPIO")
	fs.StringVar(&o.gpio.led, "gpio-led", "GPIO25", "camera shoe: the status LED's GPIO")
	fs.StringVar(&o.simDeck, "sim-deck", "anglo", "simulated camera shoe: the card design rendered (sabot vision render --list)")
	fs.BoolVar(&o.quiet, "quiet", false, "do not print the live feed on standard output")
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	addOpsFlags(fs, &o.ops)
	addTerminalFlags(fs, &o.term)
	fs.Func("sim-stack", "simulation: the first shoe's first cards after the cut, in order, e.g. 2c,8s,5h,As (a stacked deck for a given round)", func(v string) error {
		cs, err := card.ParseList(v)
		if err != nil {
			return fmt.Errorf("sim-stack: %w", err)
		}
		o.simStack = cs
		return nil
	})
	fs.StringVar(&o.shufflerKind, "shuffler", "sabot", "the shuffler: sabot (a Sabot-protocol shuffler on --shuffler-port, which reads and counts the cards), none (no shuffler's link: the dealer shuffles by hand or opens pre-shuffled packs and attests them at the terminal; the count passes the cards left through the shoe) or csm (a continuous shuffler, blackjack: no cut, no stop card, every round's cards go back)")
	fs.StringVar(&o.simDealer, "sim-dealer", "on", "simulation: on, the simulated dealer gives every command; off, the dealer terminal does (the simulated hands still draw the cards and load the shoe)")
	addJournalFlags(fs, &o.jopt)
	fs.StringVar(&o.key, "key", "", "the table's Ed25519 signing key (sabot keys table); empty: development keys beside the journal")
	fs.StringVar(&o.keyring, "keyring", "", "the keyring signed by the floor's root (sabot keys sign), published retained")
	fs.StringVar(&o.root, "root", "", "the root's public key: the keyring must be signed by it")
	fs.StringVar(&o.requireAck, "require-ack", "", "consumers whose acknowledgements decide where publishing starts after a restart, e.g. engine.E1,surveillance.S1")
	fs.StringVar(&o.brokerDir, "broker-dir", "", "embedded broker: the accounts of sabot broker-config (accounts, passwd)")
	fs.StringVar(&o.progPool, "progressive-pool", "", "the progressive pool this table's progressive bets feed, at the floor's controller (sabot progressive serve; caribbean-stud, draw-poker, go-poker)")
	fs.DurationVar(&o.progWait, "progressive-wait", 10*time.Second, "how long a round waits for the progressive controller's award before it is held for a supervisor")
	fs.StringVar(&o.brokerAnon, "broker-anonymous", "surveillance,dealer", "embedded broker: the roles of clients without an account, comma-separated (none, surveillance, engine, display, dealer)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.config != "" {
		explicit := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
		if err := loadConfig(fs, o.config, explicit); err != nil {
			return nil, err
		}
	}
	if p := os.Getenv("SABOT_TERMINAL_MQTT_PASSWORD"); p != "" && o.term.pass == "" {
		o.term.pass = p
	}
	switch o.simDealer {
	case "on", "off":
	default:
		return nil, fmt.Errorf("sim-dealer %q: on or off", o.simDealer)
	}
	if o.simDealer == "off" && o.term.addr == "" {
		return nil, fmt.Errorf("sim-dealer off: give --terminal, the page that deals instead")
	}
	if p := os.Getenv("SABOT_MQTT_PASSWORD"); p != "" && o.pass == "" {
		o.pass = p
	}
	if err := tablebus.ValidTable(o.table); err != nil {
		return nil, err
	}
	switch o.shoeKind {
	case "":
		o.shoeKind = "reader"
		if o.sim {
			o.shoeKind = "camera" // the simulation reads rendered frames with the real recognizer
		}
	case "reader", "camera":
	default:
		return nil, fmt.Errorf("shoe %q: reader or camera", o.shoeKind)
	}
	switch o.shufflerKind {
	case "sabot", "none", "csm":
	default:
		return nil, fmt.Errorf("shuffler %q: sabot, none or csm", o.shufflerKind)
	}
	if !o.sim {
		switch {
		case o.shufflerPort == "" && o.shufflerKind == "sabot":
			return nil, fmt.Errorf("no shuffler: give --shuffler-port, or --sim for simulated devices, or --shuffler none (cards shuffled by hand) or csm (a continuous shuffler)")
		case o.shufflerPort != "" && o.shufflerKind != "sabot":
			return nil, fmt.Errorf("shuffler-port with --shuffler %s: that shuffler has no link", o.shufflerKind)
		case o.shoeKind == "reader" && o.shoePort == "":
			return nil, fmt.Errorf("no shoe: give --shoe-port (a reading shoe), --shoe camera, or --sim for simulated devices")
		case o.shoeKind == "camera" && (o.camera == "" || o.visionProfile == ""):
			return nil, fmt.Errorf("camera shoe: give --camera (the reader camera) and --vision-profile (sabot calibrate vision)")
		}
	}
	if o.journal == "" {
		dir := os.Getenv("STATE_DIRECTORY")
		if dir == "" {
			dir = "var"
		}
		o.journal = filepath.Join(dir, o.table+".db")
	}
	if err := o.ops.validate(o.journal); err != nil {
		return nil, err
	}
	o.ops.effective = effectiveConfig(fs)
	return o, nil
}

// optionList is the repeatable --option name=value.
type optionList struct{ m map[string]string }

func (l *optionList) String() string {
	var s []string
	for _, k := range slices.Sorted(maps.Keys(l.m)) {
		s = append(s, k+"="+l.m[k])
	}
	return strings.Join(s, ",")
}

func (l *optionList) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("option %q: want name=value", v)
	}
	if l.m == nil {
		l.m = map[string]string{}
	}
	k = strings.TrimSpace(k)
	if _, dup := l.m[k]; dup {
		return fmt.Errorf("option %q given twice", k)
	}
	l.m[k] = strings.TrimSpace(val)
	return nil
}

// parseLimits reads "spot=min-max,…" in cents.
func parseLimits(s string) ([]games.Limit, error) {
	var out []games.Limit
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		spot, rng, ok := strings.Cut(part, "=")
		lo, hi, ok2 := strings.Cut(rng, "-")
		min, err1 := strconv.ParseInt(lo, 10, 64)
		max, err2 := strconv.ParseInt(hi, 10, 64)
		if !ok || !ok2 || err1 != nil || err2 != nil || min <= 0 || max < min {
			return nil, fmt.Errorf("limits: %q: want spot=min-max in cents, 0 < min ≤ max", part)
		}
		out = append(out, games.Limit{Spot: spot, Min: min, Max: max})
	}
	return out, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	err := runDaemon(ctx, args, stdout, stderr)
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return nil // stopped (Ctrl-C, SIGTERM) while starting: a clean stop
	}
	return err
}

func runDaemon(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	log, err := newLogger(o.logLevel, o.ops.logFormat, stderr)
	if err != nil {
		return err
	}
	log = log.With("table", o.table)
	stopLog := context.AfterFunc(ctx, func() { log.Info("sabotd stopping", "cause", context.Cause(ctx).Error()) })
	defer stopLog()

	// The game and its shoe procedure.
	ent, err := catalog.Lookup(o.game)
	if err != nil {
		return err
	}
	fam, err := shoe.ParseFamily(ent.Family)
	if err != nil {
		return err
	}
	proc, err := shoe.ProcedureFor(fam, o.decks)
	if err != nil {
		return err
	}
	limits, err := parseLimits(o.limits)
	if err != nil {
		return err
	}
	if o.shufflerKind == "csm" {
		if o.burn != "" || o.stopCard != 0 {
			return fmt.Errorf("a continuous shuffler's shoe has no burn and no stop card (RULES.md §1): drop --burn and --stop-card")
		}
		if proc, err = proc.WithContinuous(); err != nil {
			return err
		}
	}
	if o.burn != "" {
		if proc, err = proc.WithBurn(o.burn); err != nil {
			return err
		}
	}
	if o.stopCard != 0 {
		if proc, err = proc.WithStopCard(o.stopCard); err != nil {
			return err
		}
	}
	if o.progPool != "" {
		if !progressiveGames[o.game] {
			return fmt.Errorf("--progressive-pool: %s has no progressive side bet (RULES.md §7: caribbean-stud, draw-poker, go-poker)", o.game)
		}
		if o.options.m == nil {
			o.options.m = map[string]string{}
		}
		o.options.m["progressive"] = "controller" // the controller pays it, not the engine
	}
	eng, err := catalog.New(games.Config{Game: o.game, Rules: o.rules, Decks: proc.Decks, Limits: limits, Options: o.options.m})
	if err != nil {
		return err
	}
	if o.ops.checkConfig {
		if err := checkConfig(o); err != nil {
			return err
		}
		fmt.Fprint(stdout, o.ops.effective, "# configuration OK\n")
		return nil
	}

	// The journal comes first: nothing happens that is not written down.
	if err := os.MkdirAll(filepath.Dir(o.journal), 0o750); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	sj, err := openJournal(ctx, o, log) // refuses a journal behind what was published
	if err != nil {
		return err
	}
	j, session := sj.j, sj.session
	defer j.Close()
	m, err := restore(ctx, j, shoe.Config{Proc: proc, Engine: eng, Table: o.table, Progressive: o.progPool, HandCount: o.shufflerKind != "sabot"})
	if err != nil {
		return err
	}
	signer, kr, root, err := busKeys(o, log)
	if err != nil {
		return err
	}
	var required []string
	if o.requireAck != "" {
		required = strings.Split(o.requireAck, ",")
	}
	ob := outbox.NewWith(j, outbox.Options{Session: session, Logger: log, Signer: signer, Keyring: kr.Raw(), Game: o.game, Required: required})
	guard := tablebus.NewCommandGuard(kr)
	guard.Since(time.Now()) // what was signed before this start may have been applied already
	log.Info("sabotd starting", "game", o.game, "decks", proc.Decks, "journal", o.journal, "session", session, "next_seq", j.NextSeq())

	// The broker: a site's, or the embedded one.
	url := o.mqtt
	if url == "" && o.progPool != "" && o.key == "" {
		// make run: the development controller's account on the embedded broker.
		pw, err := keystore.DevControllerPassword(filepath.Join(filepath.Dir(o.journal), "keys"))
		if err != nil {
			return err
		}
		hash, err := access.HashPassword(pw)
		if err != nil {
			return err
		}
		o.devAccounts = append(o.devAccounts, broker.Account{Account: access.Account{Name: keystore.DevProgressiveName, Role: access.Progressive}, Hash: hash})
	}
	if url == "" {
		b, err := embeddedBroker(o, log)
		if err != nil {
			return err
		}
		defer b.Close()
		url = b.URL()
		log.Info("embedded MQTT broker listening", "url", url)
	}
	topics := tablebus.Topics{Table: o.table}

	// The devices, real or simulated.
	devs, err := openDevices(ctx, o, proc, log)
	if err != nil {
		return err
	}
	defer devs.Close()

	if devs.sim != nil {
		devs.sim.restore(m)
	}
	var shuf shoe.Shuffler // none: the dealer attests the cards, the shoe counts them
	if devs.shuffler != nil {
		shuf = devs.shuffler
	}
	loop := shoe.NewLoop(m, shuf, ob, log)
	var printer *outbox.Observer
	if !o.quiet {
		printer = ob.Observe()
	}
	var dealerObs, termObs *outbox.Observer
	if o.sim {
		dealerObs = ob.Observe()
	}
	if o.term.addr != "" {
		termObs = ob.Observe()
	}

	tlsConf, err := mqttbus.TLSFiles(o.mqttCA, o.mqttCert, o.mqttKey)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err // stopped while the devices opened: never go online
	}
	client, err := mqttbus.Connect(ctx, mqttbus.Options{
		URL: url, ClientID: "sabotd-" + o.table, Username: o.user, Password: o.pass, Logger: log, TLS: tlsConf,
		NextWill:  ob.Will,                                  // the sealed death of each connection
		OnConnect: func(*mqttbus.Client) { ob.Connected() }, // birth, keyring, re-publish from the acks
	})
	if err != nil {
		return err
	}
	defer client.Close()
	ops, err := newOps(ctx, opsDeps{o: o, log: log, j: j, ob: ob, loop: loop, devs: devs, client: client, session: session, eng: eng})
	if err != nil {
		return err
	}
	var term *dealerTerminal
	if o.term.addr != "" {
		ent, _ := catalog.Lookup(o.game)
		if term, err = newTerminal(ctx, termDeps{o: o, log: log, j: j, ob: ob, obs: termObs, m: m, eng: eng, proc: proc, kr: kr,
			url: url, family: ent.Family}); err != nil {
			return err
		}
	}
	if err := recordLoss(ctx, ob, sj, o); err != nil { // the session's first event, seen by every observer
		return err
	}

	g, gctx := errgroup.WithContext(ctx)
	// On the way down, the actuators stop first (STYLE.md: Halt leaves every device inert).
	stopHalt := context.AfterFunc(gctx, devs.Halt)
	defer stopHalt()
	g.Go(func() error { return ops.run(gctx) })
	if term != nil {
		g.Go(func() error { return term.run(gctx) })
	}
	g.Go(func() error { return loop.Run(gctx) })
	if m.Phase() == shoe.Verified && shuf != nil {
		g.Go(func() error { // shuffle the load verified before the restart
			if err := loop.Do(gctx, shoe.StartShoe{}); err != nil && gctx.Err() == nil {
				log.Warn("shuffling the load verified before the restart", "err", err)
			}
			return nil
		})
	}
	// The outbox outlives the table on the way down: what was journaled before a stop goes
	// out (within drainOnStop), so that no consumer waits for the next start to have it.
	obCtx, stopOb := context.WithCancel(context.WithoutCancel(ctx))
	defer stopOb()
	var obErr error
	obRan := make(chan struct{})
	go func() { obErr = ob.Run(obCtx, client); close(obRan) }()
	g.Go(func() error {
		select {
		case <-obRan:
			return obErr
		case <-gctx.Done():
			return nil
		}
	})
	g.Go(func() error { return serveCommands(gctx, client, topics, loop, guard, ob, log) })
	if o.progPool != "" {
		link := &progressiveLink{pool: o.progPool, table: o.table, kr: kr, loop: loop, obs: ob.Observe(), wait: o.progWait,
			log: log.With("progressive", o.progPool), onMeter: ops.meter}
		g.Go(func() error { return link.run(gctx, client) })
	}
	g.Go(func() error { probeBus(gctx, ob, client, log); return nil })
	g.Go(func() error { watchKeys(gctx, o, root, ob, guard, log); return nil })
	g.Go(func() error { return devs.readShoe(gctx, loop, log) })
	if devs.camera != nil {
		led := ob.Observe()
		g.Go(func() error { devs.camera.showState(gctx, led); return nil })
	}
	g.Go(func() error { return devs.watchShuffler(gctx, loop, log) })
	if printer != nil {
		g.Go(func() error { return printFeed(gctx, printer, stdout) })
	}
	simDone := make(chan struct{})
	if o.sim {
		g.Go(func() error {
			err := devs.sim.deal(gctx, dealerObs, loop, o, log)
			close(simDone)
			return err
		})
	}
	g.Go(func() error {
		select {
		case <-simDone:
			// The simulation played its shoes: let the feed drain, then stop.
			drain(gctx, ob, client, 10*time.Second, log)
			return errDone
		case <-gctx.Done():
			return nil
		}
	})
	err = g.Wait()
	// Shutdown: actuators first, then a clean offline status.
	ops.stopping()
	devs.Halt()
	select {
	case <-obRan: // it failed: nothing more goes out
	default:
		drain(obCtx, ob, client, drainOnStop, log)
	}
	stopOb()
	<-obRan // its marks saved
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if perr := ob.Offline(sctx, client); perr != nil {
		log.Warn("publishing the offline status", "err", perr)
	}
	log.Info("sabotd stopped", "last_seq", ob.LastSeq())
	if errors.Is(err, errDone) {
		return nil
	}
	return err
}

var errDone = errors.New("simulation done")

// restore builds the table's machine and, if the journal holds a shoe that has not ended,
// replays it so that the daemon stands where it stood: same shoe, same round, same engine state.
func restore(ctx context.Context, j *journal.Journal, cfg shoe.Config) (*shoe.Machine, error) {
	cfg.Manage = catalog.Manage
	m, err := shoe.Restore(ctx, j, cfg)
	if err != nil {
		return nil, fmt.Errorf("%w (journal %s)", err, j.Path())
	}
	return m, nil
}

// drainOnStop bounds the publishing of what was journaled when the daemon stops: it stops
// within seconds of a signal; what is left goes out at the next start.
const drainOnStop = 2 * time.Second

// drain waits until the outbox has published everything journaled (at most within).
func drain(ctx context.Context, ob *outbox.Outbox, _ *mqttbus.Client, within time.Duration, log *slog.Logger) {
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for ob.Published() < ob.LastSeq() {
		select {
		case <-ctx.Done():
			return
		case <-deadline.C:
			log.Warn("stopping with events not yet published", "published", ob.Published(), "last", ob.LastSeq())
			return
		case <-tick.C:
		}
	}
}

func printFeed(ctx context.Context, ob *outbox.Observer, w io.Writer) error {
	for {
		e, err := ob.Next(ctx)
		if err != nil {
			return nil
		}
		if s := tablebus.Describe(e); s != "" {
			fmt.Fprintf(w, "%s %s #%-6d %s\n", e.TS.Local().Format("15:04:05.000"), e.Table, e.Seq, s)
		}
	}
}
