package main

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/sys/unix"

	"github.com/sabot-tables/sabot/cmd/internal/floor"
	"github.com/sabot-tables/sabot/cmd/internal/metrics"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/consumer"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/keystore"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

func init() {
	addCommand(command{name: "watch", summary: "the floor live from the broker: tables in the terminal, --json to tail events, --http for the web view", run: runWatch})
}

// watchList is a repeatable flag of sabot watch.
type watchList []string

func (l *watchList) String() string     { return strings.Join(*l, ",") }
func (l *watchList) Set(s string) error { *l = append(*l, s); return nil }

func runWatch(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("watch", "[--table T]… [--secure] [--json | --lines | --http ADDR] [--mqtt URL] [--root root.pub]", stderr)
	var tables, journals watchList
	fs.Var(&tables, "table", "a table to follow (repeat for several; none: every table)")
	url := fs.String("mqtt", "tcp://127.0.0.1:1883", "broker URL")
	user := fs.String("mqtt-user", "", "MQTT user name (password from SABOT_MQTT_PASSWORD); in production the same as --id")
	mqttTLS := tlsFlags(fs)
	id := fs.String("id", "", "this consumer's id (default display.watch, or surveillance.watch with --secure)")
	secure := fs.Bool("secure", false, "follow the secure feed: hidden cards, burns and the engines' alarms (a surveillance account)")
	ack := fs.Bool("ack", true, "with --secure: acknowledge each event once shown, retained on sabot/v1/<table>/ack/<id> (what the daemon's --require-ack waits for), and start after that acknowledgement when run again; --ack=false only looks")
	asJSON := fs.Bool("json", false, "tail the verified events: each one's exact payload on a line of its own")
	lines := fs.Bool("lines", false, "one line per event, as the daemon prints its feed (the default when the output is not a terminal)")
	httpAddr := fs.String("http", "", "serve the floor's web view and /metrics on this address, e.g. :8080")
	httpHosts := fs.String("http-hosts", "", "host names the web view answers to besides localhost and IP addresses, comma-separated")
	cardArt := fs.String("card-art", floor.DefaultCardArt, "card art for the web view (an Aisleriot deck)")
	fs.Var(&journals, "journal", "TABLE=FILE: a table's journal, for the web view's replay (repeat for several)")
	rootPath := fs.String("root", "", "the floor's root public key (sabot keys root); empty trusts the first keyring's root (development)")
	krPath := fs.String("keyring", "", "a keyring file to start with (it is also received from the tables)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("watch: unexpected argument %q", fs.Arg(0))
	}
	for _, t := range tables {
		if err := tablebus.ValidTable(t); err != nil {
			return fmt.Errorf("watch: %w", err)
		}
	}
	modes := 0
	for _, on := range []bool{*asJSON, *lines, *httpAddr != ""} {
		if on {
			modes++
		}
	}
	if modes > 1 {
		return fmt.Errorf("watch: --json, --lines and --http are three different views: choose one")
	}
	feed := tablebus.Public
	if *secure {
		feed = tablebus.Secure
	}
	if *id == "" {
		*id = "display.watch"
		if *secure {
			*id = "surveillance.watch"
		}
	}
	if err := tablebus.ValidConsumer(*id); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	var root ed25519.PublicKey
	var err error
	if *rootPath != "" {
		if root, err = tablebus.ReadPublicKey(*rootPath); err != nil {
			return fmt.Errorf("watch: %w", err)
		}
	}
	var kr *tablebus.Keyring
	if *krPath != "" {
		if kr, err = keystore.ReadKeyring(*krPath, root); err != nil {
			return fmt.Errorf("watch: %w", err)
		}
	}
	var art *floor.Art
	if *httpAddr != "" {
		if art, err = floor.LoadArt(*cardArt); err != nil {
			return fmt.Errorf("watch: %w", err)
		}
	}
	js := map[string]floor.Journal{}
	for _, spec := range journals {
		table, path, ok := strings.Cut(spec, "=")
		if !ok || tablebus.ValidTable(table) != nil || path == "" {
			return fmt.Errorf("watch: --journal %q: want TABLE=FILE", spec)
		}
		// Read-only: another process's live journal is never upgraded, and a typo creates nothing.
		j, err := journal.OpenReadOnly(path)
		if err != nil {
			return fmt.Errorf("watch: %w", err)
		}
		if j.Table() != table {
			j.Close()
			return fmt.Errorf("watch: --journal %s=%s: the journal is table %s's", table, path, j.Table())
		}
		defer j.Close()
		js[table] = j
	}

	level := slog.LevelWarn
	if *httpAddr != "" {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	copts := consumer.Options{ID: *id, Tables: tables, Feed: feed, Keyring: kr, Root: root, Logger: log}
	if *secure && *ack {
		// A display account may not write acknowledgements (tablebus/access): only the secure
		// feed's surveillance accounts acknowledge. Resuming after its own acknowledgement, a
		// restarted watch asks for what it missed instead of acknowledging events it never saw.
		copts.Ack, copts.Resume = consumer.AckDelivered, true
	}
	c, err := consumer.New(copts)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	tlsConf, err := mqttTLS()
	if err != nil {
		return err
	}
	client, err := mqttbus.Connect(ctx, mqttbus.Options{TLS: tlsConf, URL: *url, ClientID: fmt.Sprintf("sabot-watch-%s-%d", *id, os.Getpid()),
		Username: *user, Password: os.Getenv("SABOT_MQTT_PASSWORD"), Logger: log})
	if err != nil {
		return err
	}
	defer client.Close()

	if *asJSON {
		return c.Run(ctx, client, consumer.Funcs{
			OnEvent: func(d consumer.Delivery) error {
				_, err := fmt.Fprintf(stdout, "%s\n", d.Payload)
				return err
			},
			OnAlarm: func(a consumer.Alarm) { fmt.Fprintf(stderr, "ALARM %s\n", a) },
			OnState: func(s consumer.State) { fmt.Fprintf(stderr, "%s\n", s) },
		})
	}

	width, tty := terminalWidth(stdout)
	if *lines || *httpAddr == "" && !tty {
		return c.Run(ctx, client, consumer.Funcs{
			OnEvent: func(d consumer.Delivery) error {
				if s := tablebus.Describe(d.Event); s != "" {
					_, err := fmt.Fprintf(stdout, "%s %s #%-6d %s\n", d.Event.TS.Local().Format("15:04:05.000"), d.Table, d.Seq, s)
					return err
				}
				return nil
			},
			OnAlarm: func(a consumer.Alarm) { fmt.Fprintf(stdout, "%s ALARM %s\n", a.TS.Local().Format("15:04:05.000"), a) },
			OnState: func(s consumer.State) { fmt.Fprintf(stdout, "%s %s\n", time.Now().Format("15:04:05.000"), s) },
		})
	}

	// The floor: the verified feed, the engines' alarms and the devices into one model. In the
	// terminal the alerts are on the screen, not in the log.
	flog := log
	if *httpAddr == "" {
		flog = slog.New(slog.DiscardHandler)
	}
	fl := floor.New(floor.Options{Logger: flog})
	reg := prometheus.NewRegistry()
	met := metrics.New(reg, nil)
	reg.MustRegister(floor.PitCollector(fl)) // the pit's figures, per table
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	bf := newBusFeed(ctx, met)
	errc := make(chan error, 2)
	wg.Add(2)
	go func() { defer wg.Done(); errc <- c.Run(ctx, client, bf) }()
	go func() { defer wg.Done(); errc <- fl.Run(ctx, bf) }()
	if err := bf.subscribeExtras(ctx, client, tables, *secure); err != nil {
		return err
	}
	if err := bf.subscribeMeters(ctx, client, c); err != nil {
		return err
	}
	go bf.watchLink(ctx, client)

	if *httpAddr != "" {
		so := floor.ServerOptions{Floor: fl, Art: art, Public: !*secure, Title: "Floor", Logger: log, Hosts: splitList(*httpHosts),
			Extra: map[string]http.Handler{"GET /metrics": promhttp.HandlerFor(reg, promhttp.HandlerOpts{})}}
		if len(js) > 0 {
			so.Journal = func(t string) (floor.Journal, bool) { j, ok := js[t]; return j, ok }
		}
		srv, err := floor.NewServer(so)
		if err != nil {
			return err
		}
		ln, err := net.Listen("tcp", *httpAddr)
		if err != nil {
			return fmt.Errorf("watch: %w", err)
		}
		hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
		wg.Add(1)
		go func() { defer wg.Done(); hs.Serve(ln) }()
		defer hs.Close()
		log.Info("web view of the floor", "url", "http://"+ln.Addr().String()+"/", "feed", string(feed))
		select {
		case <-ctx.Done():
			return nil
		case err := <-errc:
			return err
		}
	}
	return drawTerminal(ctx, fl, stdout, width, errc)
}

// drawTerminal redraws the floor in the terminal at each change, at most five times a second.
func drawTerminal(ctx context.Context, fl *floor.Floor, w io.Writer, width int, errc <-chan error) error {
	var buf strings.Builder
	tick := time.NewTicker(time.Second) // "last card 3 s ago" moves on
	defer tick.Stop()
	for {
		changed := fl.Changed()
		buf.Reset()
		buf.WriteString("\x1b[H\x1b[2J")
		floor.WriteText(&buf, fl.Snapshot(0), floor.TextOptions{Width: width, Color: true, Now: time.Now()})
		if _, err := io.WriteString(w, buf.String()); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case err := <-errc:
			return err
		case <-changed:
		case <-tick.C:
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// terminalWidth says whether w is a terminal, and its width.
func terminalWidth(w io.Writer) (int, bool) {
	f, ok := w.(*os.File)
	if !ok {
		return 0, false
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 {
		return 0, false
	}
	return int(ws.Col), true
}

// busFeed is a floor.Feed fed by tablebus's verifying consumer (consumer.Handler), by the
// engines' and the devices' topics, and by the broker link's state.
type busFeed struct {
	met  *metrics.Table
	ch   chan floor.Delivery
	done <-chan struct{} // the floor stopped reading
}

var (
	_ floor.Feed       = (*busFeed)(nil)
	_ consumer.Handler = (*busFeed)(nil)
)

func newBusFeed(ctx context.Context, met *metrics.Table) *busFeed {
	return &busFeed{met: met, ch: make(chan floor.Delivery, 4096), done: ctx.Done()}
}

// Next hands the floor the next delivery.
func (b *busFeed) Next(ctx context.Context) (floor.Delivery, error) {
	select {
	case d := <-b.ch:
		return d, nil
	case <-ctx.Done():
		return floor.Delivery{}, ctx.Err()
	}
}

// push hands the floor a delivery; the consumer waits while the floor catches up.
func (b *busFeed) push(d floor.Delivery) {
	select {
	case b.ch <- d:
	case <-b.done:
	}
}

// Event takes a verified event.
func (b *busFeed) Event(d consumer.Delivery) error {
	e := d.Event
	b.met.Observe(e, time.Now())
	b.push(floor.Delivery{Event: &e})
	return nil
}

// forged are the consumer's alarms that say an event is not the daemon's.
var forged = map[string]bool{
	consumer.AlarmForged: true, consumer.AlarmUnknownKey: true, consumer.AlarmRevokedKey: true,
	consumer.AlarmKeyNotValid: true, consumer.AlarmEquivocation: true, consumer.AlarmChain: true, consumer.AlarmKeyring: true,
}

// Alarm takes what the consumer refused or noticed.
func (b *busFeed) Alarm(a consumer.Alarm) {
	kind := floor.ProblemRejected
	switch {
	case forged[a.Code]:
		kind = floor.ProblemForged
	case a.Code == consumer.AlarmGap:
		kind = floor.ProblemGap
	}
	b.met.FeedRejected(a.Table, a.Code)
	detail := a.Detail
	if a.Seq != 0 {
		detail = fmt.Sprintf("event %d: %s", a.Seq, detail)
	}
	b.push(floor.Delivery{Problem: &floor.Problem{Table: a.Table, Kind: kind, Detail: a.Code + ": " + detail, At: a.TS}})
}

// State takes a daemon's birth or death.
func (b *busFeed) State(s consumer.State) {
	if !s.Known {
		return
	}
	b.push(floor.Delivery{Status: &tablebus.Status{V: tablebus.SchemaVersion, Table: s.Table, Online: s.Online,
		Session: s.Session, Conn: s.Conn, Seq: s.DaemonSeq, TS: s.Since}})
}

// subscribeExtras follows what the consumer does not: the daemons' device reports and, on the
// secure side, the engines' own streams (their alarms).
func (b *busFeed) subscribeExtras(ctx context.Context, client *mqttbus.Client, tables []string, secure bool) error {
	if len(tables) == 0 {
		tables = []string{"+"}
	}
	h := func(m mqttbus.Message) {
		d, err := floor.Decode(m.Topic, m.Payload)
		if err != nil {
			return
		}
		if d.Event != nil && d.Event.Type != tablebus.Fault {
			return // an engine's guidance and results: the table's own are on the feed
		}
		b.push(d)
	}
	for _, t := range tables {
		topics := tablebus.Topics{Table: t}
		if err := client.Subscribe(ctx, topics.Devices(), 1, h); err != nil {
			return err
		}
		if secure {
			if err := client.Subscribe(ctx, topics.Engine("+"), 1, h); err != nil {
				return err
			}
		}
	}
	return nil
}

// subscribeMeters shows the progressive pools' meters (RULES.md §7), each verified as the
// controller's with the consumer's keyring; one that does not verify is a forged alert.
func (b *busFeed) subscribeMeters(ctx context.Context, client *mqttbus.Client, c *consumer.Consumer) error {
	return client.Subscribe(ctx, tablebus.PoolTopics{Pool: "+"}.Meter(), 1, func(m mqttbus.Message) {
		kr := c.Keyring()
		if kr == nil {
			return // no keyring yet: the next meter comes with the next booking
		}
		var mt tablebus.Meter
		if _, err := tablebus.OpenProgressive(kr, m.Topic, m.Payload, &mt); err != nil {
			b.push(floor.Delivery{Problem: &floor.Problem{Kind: floor.ProblemForged, Detail: fmt.Sprintf("progressive meter on %s: %v", m.Topic, err), At: time.Now()}})
			return
		}
		b.push(floor.Delivery{Meter: &mt})
	})
}

// watchLink tells the floor when its own connection to the broker goes down and comes back.
func (b *busFeed) watchLink(ctx context.Context, client *mqttbus.Client) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	up := true
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if now := client.Connected(); now != up {
			up = now
			p := &floor.Problem{Kind: floor.ProblemLinkUp, Detail: "the broker is back", At: time.Now()}
			if !up {
				p = &floor.Problem{Kind: floor.ProblemLink, Detail: "the connection to the broker " + client.String() + " is down: nothing arrives from any table", At: time.Now()}
			}
			b.push(floor.Delivery{Problem: p})
		}
	}
}

// splitList splits a comma-separated list, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
