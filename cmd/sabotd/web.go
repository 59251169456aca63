package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sabot-tables/sabot/cmd/internal/floor"
	"github.com/sabot-tables/sabot/cmd/internal/metrics"
	"github.com/sabot-tables/sabot/cmd/internal/sdnotify"
	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
	"github.com/sabot-tables/sabot/tablebus/outbox"
)

// opsOptions are the settings of the daemon's operations side: the web view, metrics, logs and
// the systemd watchdog.
type opsOptions struct {
	http        string
	httpPublic  bool
	cardArt     string
	reports     string
	logFormat   string
	stallAfter  time.Duration
	checkConfig bool
	httpHosts   string
	scoreboard  string // the scoreboard's address (scoreboard.go)
	boardLang   string

	art       *floor.Art // loaded by validate when the web view is on
	effective string     // every setting in force, as a configuration file (--check-config)
}

func addOpsFlags(fs *flag.FlagSet, o *opsOptions) {
	fs.StringVar(&o.http, "http", "", "address of the web view, the technician pages and /metrics, e.g. 127.0.0.1:8080 (empty: off)")
	fs.StringVar(&o.httpHosts, "http-hosts", "", "host names the web view answers to besides localhost and IP addresses, comma-separated (DNS-rebinding guard)")
	fs.BoolVar(&o.httpPublic, "http-public", false, "the web view shows the public feed only: face-down cards stay hidden (for a display outside surveillance)")
	fs.StringVar(&o.cardArt, "card-art", floor.DefaultCardArt, "card art for the web view: an Aisleriot deck (.svg or .svgz, 13 × 5 cards)")
	fs.StringVar(&o.reports, "reports", "", "directory of the vision calibration and camera reports (PNG) for the technician page (default: reports/ beside the journal)")
	fs.StringVar(&o.logFormat, "log-format", "text", "log format: text (key=value) or json (one object per line)")
	fs.DurationVar(&o.stallAfter, "watchdog-stall", 30*time.Second, "a loop silent this long outside a device operation is stalled: the daemon asks systemd for a restart")
	fs.BoolVar(&o.checkConfig, "check-config", false, "check the configuration, print every setting, and exit (0: usable)")
	addScoreboardFlags(fs, o)
}

// validate checks the operations settings; journal is the journal's path (for the reports
// default). The card art is loaded here so that a missing package is an error at start.
func (o *opsOptions) validate(journalPath string) error {
	switch o.logFormat {
	case "text", "json":
	default:
		return fmt.Errorf("log format %q: want text or json", o.logFormat)
	}
	if o.stallAfter < time.Second {
		return fmt.Errorf("watchdog-stall %v: want at least 1s", o.stallAfter)
	}
	if o.reports == "" {
		o.reports = filepath.Join(filepath.Dir(journalPath), "reports")
	} else if fi, err := os.Stat(o.reports); err == nil && !fi.IsDir() {
		return fmt.Errorf("reports %s: not a directory", o.reports)
	}
	if o.http == "" {
		if o.httpPublic {
			return fmt.Errorf("http-public without http: give the web view's address with --http")
		}
		return nil
	}
	if _, port, err := net.SplitHostPort(o.http); err != nil || port == "" {
		return fmt.Errorf("http %q: want host:port, e.g. 127.0.0.1:8080 or :8080", o.http)
	}
	art, err := floor.LoadArt(o.cardArt)
	if err != nil {
		return err
	}
	o.art = art
	return nil
}

// newLogger returns the daemon's logger: slog, text or JSON, at a level.
func newLogger(level, format string, w io.Writer) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("log level %q: want debug, info, warn or error", level)
	}
	ho := &slog.HandlerOptions{Level: l}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, ho)), nil
	}
	return slog.New(slog.NewTextHandler(w, ho)), nil
}

// effectiveConfig writes every setting of fs as a configuration file would hold it (`sabotd
// --check-config`); the MQTT password is never written.
func effectiveConfig(fs *flag.FlagSet) string {
	var b strings.Builder
	b.WriteString("# sabotd: the configuration in force\n")
	fs.VisitAll(func(f *flag.Flag) {
		switch f.Name {
		case "config", "check-config":
			return
		case "mqtt-password":
			if f.Value.String() != "" {
				fmt.Fprintf(&b, "%s = (set)\n", f.Name)
				return
			}
		}
		fmt.Fprintf(&b, "%s = %s\n", f.Name, f.Value.String())
	})
	return b.String()
}

// ops is the daemon's operations side: the live floor of this table fed from the outbox, the
// web view and /metrics, the diagnostics, and the service manager's notifications and watchdog.
type ops struct {
	o      *options
	log    *slog.Logger
	table  string
	floor  *floor.Floor
	met    *metrics.Table
	notify *sdnotify.Notifier
	wd     *sdnotify.Watchdog
	diag   *diag
	obs    *outbox.Observer
	loop   *shoe.Loop
	ln     net.Listener
	srv    *http.Server
	ro     *journal.Journal // the web view's read-only connection to the journal
	board  *scoreboard      // the table's scoreboard, public (scoreboard.go); nil when off

	statusMu   sync.Mutex
	lastStatus string
}

// opsDeps is what the operations side is given of the daemon.
type opsDeps struct {
	o       *options
	log     *slog.Logger
	j       *journal.Journal
	ob      *outbox.Outbox
	loop    *shoe.Loop
	devs    *devices
	client  *mqttbus.Client
	session uint64
	eng     games.Engine // the table's game, for what the view knows beyond the feed
}

// newOps sets up the operations side before the loops start: it wraps the loop's shuffler so
// that the watchdog knows a device operation from a stall, observes the outbox from its next
// event, primes the floor with the open shoe from the journal, and binds the web view's port.
func newOps(ctx context.Context, d opsDeps) (*ops, error) {
	o := d.o
	p := &ops{o: o, log: d.log.With("component", "ops"), table: o.table, loop: d.loop}
	notify, err := sdnotify.FromEnv()
	if err != nil {
		return nil, err
	}
	p.notify = notify
	every := 10 * time.Second
	if iv, on, err := sdnotify.WatchdogInterval(); err != nil {
		return nil, err
	} else if on {
		every = iv / 3
		p.log.Info("systemd watchdog on", "interval", iv, "ping_every", every, "stall_after", o.ops.stallAfter)
	}
	p.wd = sdnotify.NewWatchdog(every, notify, p.log)

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	p.met = metrics.New(reg, nil)
	metrics.QueueDepth(reg, o.table, func() float64 { return float64(d.ob.LastSeq() - d.ob.Published()) })

	p.floor = floor.New(floor.Options{Logger: p.log})
	reg.MustRegister(floor.PitCollector(p.floor)) // the table's pit figures
	if c, ok := tableConfig(d.eng); ok {
		if err := p.floor.Configure(o.table, c); err != nil {
			return nil, err
		}
	}
	p.diag = newDiag(d, p.wd, p.floor, p.met)
	p.wd.OnPing = p.met.WatchdogPing
	p.wd.OnStall = func(name, why string, stalled bool) {
		p.met.Stalled(name, stalled)
		if stalled {
			p.floor.Raise(floor.Alert{Table: o.table, Kind: floor.KindStalled, Text: why + "; the daemon asks systemd to restart it"})
		}
	}

	if p.board, err = newScoreboard(o, d.eng, p.log); err != nil {
		return nil, err
	}
	p.obs = d.ob.Observe()
	if err := p.prime(ctx, d.j, d.session); err != nil {
		p.log.Warn("the web view starts without the open shoe's history", "err", err)
	}

	if o.ops.http != "" {
		// The replay reads through a read-only connection of its own: the web view's queries
		// never wait on, nor hold up, the table's journal appends.
		ro, err := journal.OpenReadOnly(d.j.Path())
		if err != nil {
			return nil, fmt.Errorf("web view: %w", err)
		}
		p.ro = ro
		var hosts []string
		for _, h := range strings.Split(o.ops.httpHosts, ",") {
			if h = strings.TrimSpace(h); h != "" {
				hosts = append(hosts, h)
			}
		}
		srv, err := floor.NewServer(floor.ServerOptions{
			Floor: p.floor, Art: o.ops.art, Tech: p.diag, Reports: o.ops.reports, Public: o.ops.httpPublic,
			Title: "Table " + o.table, Logger: p.log, Hosts: hosts,
			Journal: func(t string) (floor.Journal, bool) { return ro, t == o.table },
			Extra:   map[string]http.Handler{"GET /metrics": promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(p.log.Handler(), slog.LevelWarn)})},
		})
		if err != nil {
			return nil, err
		}
		ln, err := net.Listen("tcp", o.ops.http)
		if err != nil {
			return nil, fmt.Errorf("web view: %w (use another --http address)", err)
		}
		p.ln = ln
		p.srv = &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second,
			ErrorLog: slog.NewLogLogger(p.log.Handler(), slog.LevelWarn)}
		p.log.Info("web view listening", "url", "http://"+ln.Addr().String()+"/", "public", o.ops.httpPublic)
	}
	return p, nil
}

// prime applies the open shoe's events from the journal to the floor, without alerts.
func (p *ops) prime(ctx context.Context, j *journal.Journal, session uint64) error {
	on := true
	p.floor.Prime(floor.Delivery{Status: &tablebus.Status{V: tablebus.SchemaVersion, Table: p.table, Online: on, Session: session, Game: p.o.game}})
	shoes, err := j.Shoes(ctx)
	if err != nil || len(shoes) == 0 {
		return err
	}
	first, last, err := j.ShoeRange(ctx, shoes[len(shoes)-1])
	if err != nil {
		return err
	}
	return j.Range(ctx, first, last, func(r journal.Record) error {
		b := r.Secure
		if p.o.ops.httpPublic {
			b = r.Public
		}
		e, err := tablebus.Decode(b)
		if err != nil {
			return err
		}
		p.floor.Prime(floor.Delivery{Event: &e})
		p.board.prime(e)
		p.diag.observe(e, false)
		return nil
	})
}

// run runs the operations side until ctx is done: READY=1 to systemd, then the feed into the
// floor and the metrics, the watchdog, the diagnostics and the web server.
func (p *ops) run(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := func(name string, f func(context.Context)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(ctx)
		}()
	}
	start("watchdog", func(ctx context.Context) { p.wd.Run(ctx) })
	start("diag", p.diag.run)
	if p.srv != nil {
		p.srv.BaseContext = func(net.Listener) context.Context { return ctx } // streams end with the daemon
		start("http", func(ctx context.Context) {
			if err := p.srv.Serve(p.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				p.log.Error("web view stopped", "err", err)
			}
		})
		defer func() {
			sctx, c := context.WithTimeout(context.Background(), 2*time.Second)
			defer c()
			p.srv.Shutdown(sctx)
			p.ro.Close()
		}()
	}
	p.board.run(ctx, start)
	if err := p.notify.Notify(sdnotify.Ready, sdnotify.Status(p.statusLine())); err != nil {
		p.log.Warn("telling systemd the daemon is ready", "err", err)
	}
	for {
		e, err := p.obs.Next(ctx)
		if err != nil {
			return nil
		}
		now := time.Now()
		p.met.Observe(e, now)
		p.diag.observe(e, true)
		p.board.apply(e) // its public form
		if p.o.ops.httpPublic {
			e = e.Public()
		}
		p.floor.Apply(floor.Delivery{Event: &e})
		if e.Type == tablebus.Guide {
			p.status()
		}
	}
}

// statusLine says the table's state in one line for `systemctl status`.
func (p *ops) statusLine() string {
	v, _ := p.floor.Table(p.table)
	s := fmt.Sprintf("table %s, %s", p.table, p.o.game)
	if v.State != "" {
		s += ": " + v.State
	}
	if v.Held != "" {
		s += " (" + v.Held + ")"
	}
	if v.Round != nil && v.Round.State == "dealing" {
		s += fmt.Sprintf(", round %d", v.Round.No)
	}
	if v.Shoe.ID != "" && !v.Shoe.Ended {
		s += fmt.Sprintf(", shoe %s with %d cards left", v.Shoe.ID, v.Shoe.Left)
	}
	return s
}

// status sends STATUS= when the line changed.
func (p *ops) status() {
	line := p.statusLine()
	p.statusMu.Lock()
	same := line == p.lastStatus
	p.lastStatus = line
	p.statusMu.Unlock()
	if !same {
		if err := p.notify.Notify(sdnotify.Status(line)); err != nil {
			p.log.Debug("sd_notify status", "err", err)
		}
	}
}

// stopping tells systemd the daemon is stopping.
func (p *ops) stopping() {
	if p == nil {
		return
	}
	p.notify.Notify(sdnotify.Stopping, sdnotify.Status("stopping: halting the devices"))
}

// meter shows a progressive pool's meter on the web view.
func (p *ops) meter(m tablebus.Meter) {
	if p.floor != nil {
		p.floor.Apply(floor.Delivery{Meter: &m})
	}
}
