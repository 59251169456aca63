package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sabot-tables/sabot/cmd/internal/progressive"
	gp "github.com/sabot-tables/sabot/games/progressive"
	"github.com/sabot-tables/sabot/games/progressive/ledger"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/keystore"
)

func init() {
	addCommand(command{name: "progressive", summary: "the floor's progressive controller: serve the pools, verify them", run: runProgressive})
}

func runProgressive(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: sabot progressive serve|verify|meter [flags] (sabot progressive serve -h)")
		return errUsage
	}
	switch args[0] {
	case "serve":
		return progressiveServe(ctx, args[1:], stdout, stderr)
	case "verify":
		return progressiveVerify(ctx, args[1:], stdout, stderr)
	case "meter":
		return progressiveMeter(ctx, args[1:], stdout, stderr)
	}
	return fmt.Errorf("progressive: unknown subcommand %q (serve, verify, meter)", args[0])
}

// floorConfig is the controller's configuration file: the pools and the tables connected to
// each (seed 000: the casino tells the regulator which tables feed which pool).
type floorConfig struct {
	Pools []ledger.Pool `json:"pools"`
}

func readFloorConfig(path string) (floorConfig, error) {
	var fc floorConfig
	b, err := os.ReadFile(path)
	if err != nil {
		return fc, fmt.Errorf("progressive: %w", err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&fc); err != nil {
		return fc, fmt.Errorf("progressive: %s: %w", path, err)
	}
	if len(fc.Pools) == 0 {
		return fc, fmt.Errorf("progressive: %s: no pool", path)
	}
	seen := map[string]string{}
	for _, p := range fc.Pools {
		if err := p.Check(); err != nil {
			return fc, fmt.Errorf("progressive: %s: %w", path, err)
		}
		for _, t := range p.Tables {
			if err := tablebus.ValidTable(t); err != nil {
				return fc, fmt.Errorf("progressive: %s: pool %s: %w", path, p.Pool, err)
			}
			if other, dup := seen[t]; dup {
				return fc, fmt.Errorf("progressive: %s: table %s feeds both pool %s and pool %s", path, t, other, p.Pool)
			}
			seen[t] = p.Pool
		}
	}
	return fc, nil
}

// devFloor is the configuration `make run` uses: one pool, the tables named.
func devFloor(tables []string) floorConfig {
	return floorConfig{Pools: []ledger.Pool{{Config: defaultPool(), Tables: tables}}}
}

func progressiveServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("progressive serve", "--config pools.json --db DB [--mqtt URL] [--id ID] (--key K --keyring KR --root R | --dev-keys DIR)", stderr)
	cfgPath := fs.String("config", "", "the pools and their tables (JSON: {\"pools\":[{\"pool\":…,\"base\":…,\"share\":…,\"prizes\":{…},\"tables\":[…]}]}); empty with --dev-table: one development pool")
	var devTables stringList
	fs.Var(&devTables, "dev-table", "development: a table of the development pool \"arica\" (repeatable; instead of --config)")
	db := fs.String("db", "var/progressive.db", "the pools' database: postgres://user@host/db (a floor) or an SQLite file")
	url := fs.String("mqtt", "tcp://127.0.0.1:1883", "broker URL")
	user := fs.String("mqtt-user", "", "MQTT user name (password from SABOT_MQTT_PASSWORD); in production the same as --id")
	mqttTLS := tlsFlags(fs)
	id := fs.String("id", "", "the controller's id (progressive.<name>): its account, its acknowledgements, its key's name (default: the key's name)")
	keyPath := fs.String("key", "", "the controller's Ed25519 key (sabot keys new), listed in the keyring with --use progressive")
	krPath := fs.String("keyring", "", "the floor's keyring (sabot keys sign)")
	rootPath := fs.String("root", "", "the floor's root public key")
	devKeys := fs.String("dev-keys", "", "development: the keys directory the tables' daemons made (var/keys)")
	window := fs.Duration("window", 200*time.Millisecond, "how long an event waits before it is booked, so that near-simultaneous events of several tables are booked in the tables' order")
	httpAddr := fs.String("http", "", "serve /metrics for Prometheus on this address")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var fc floorConfig
	var err error
	switch {
	case *cfgPath != "":
		if fc, err = readFloorConfig(*cfgPath); err != nil {
			return err
		}
	case len(devTables) > 0:
		fc = devFloor(devTables)
	default:
		fs.Usage()
		return errUsage
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	var signer *tablebus.Signer
	var kr *tablebus.Keyring
	var root ed25519.PublicKey
	switch {
	case *devKeys != "":
		if signer, kr, err = keystore.DevController(*devKeys); err != nil {
			return err
		}
		log.Warn("signing with the development controller key (not for a casino floor)", "dir", *devKeys, "kid", signer.KeyID())
		if *user == "" && os.Getenv("SABOT_MQTT_PASSWORD") == "" {
			// The account a daemon's embedded broker gives the development controller.
			pw, err := keystore.DevControllerPassword(*devKeys)
			if err != nil {
				return err
			}
			*user = keystore.DevProgressiveName
			os.Setenv("SABOT_MQTT_PASSWORD", pw)
		}
	case *keyPath != "" && *krPath != "" && *rootPath != "":
		if root, err = tablebus.ReadPublicKey(*rootPath); err != nil {
			return err
		}
		priv, err := tablebus.ReadPrivateKey(*keyPath)
		if err != nil {
			return err
		}
		signer = tablebus.NewSigner(priv)
		if kr, err = keystore.ReadKeyring(*krPath, root); err != nil {
			return err
		}
	default:
		return errors.New("progressive serve: give --key, --keyring and --root, or --dev-keys for development keys")
	}
	ent, err := kr.ProgressiveKey(signer.KeyID(), time.Now())
	if err != nil {
		return fmt.Errorf("progressive serve: the key %s is not the keyring's progressive key: %w", signer.KeyID(), err)
	}
	if *id == "" {
		*id = ent.Name
	}
	if *id != ent.Name {
		return fmt.Errorf("progressive serve: --id %s, but the keyring names the key's controller %s", *id, ent.Name)
	}
	if !isURL(*db) {
		if err := os.MkdirAll(filepath.Dir(*db), 0o750); err != nil {
			return err
		}
	}
	l, err := ledger.Open(ctx, *db, nil)
	if err != nil {
		return err
	}
	defer l.Close()
	for _, p := range fc.Pools {
		if err := l.Configure(ctx, p); err != nil {
			return err
		}
	}
	tlsConf, err := mqttTLS()
	if err != nil {
		return err
	}
	m := newControllerMetrics()
	if *httpAddr != "" {
		reg := prometheus.NewRegistry()
		reg.MustRegister(m.booked, m.latency, m.alarms, m.value)
		ln, err := net.Listen("tcp", *httpAddr)
		if err != nil {
			return fmt.Errorf("progressive serve: %w", err)
		}
		srv := &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		log.Info("metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	}
	log.Info("progressive controller starting", "id", *id, "db", l.String(), "pools", len(fc.Pools))
	return progressive.Run(ctx, progressive.Options{ID: *id, Ledger: l, Signer: signer, Keyring: kr, Root: root,
		URL: *url, User: *user, Password: os.Getenv("SABOT_MQTT_PASSWORD"), TLS: tlsConf, Window: *window, Logger: log,
		OnAlarm: m.alarm, OnBooked: func(b progressive.Booking) {
			m.book(b)
			if b.Booked.Again {
				return
			}
			fmt.Fprintf(stdout, "%s %s %s #%d round %d: %s, pool %s\n", time.Now().Format("15:04:05.000"), b.Pool, b.Table, b.Seq, b.Booked.Round,
				describeBooking(b), cents(b.Booked.Meter.Value))
		}})
}

func isURL(dsn string) bool {
	return len(dsn) > 11 && (dsn[:11] == "postgres://" || len(dsn) > 13 && dsn[:13] == "postgresql://")
}

func cents(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

func describeBooking(b progressive.Booking) string {
	switch b.Booked.Kind {
	case "bets":
		var sum int64
		for _, f := range b.Booked.Feeds {
			sum += f.Amount
		}
		return fmt.Sprintf("%d progressive bet(s), %s", len(b.Booked.Feeds), cents(sum))
	case "hands":
		if r := b.Booked.Result; r != nil && len(r.Payouts) > 0 {
			s := ""
			for _, p := range r.Payouts {
				s += fmt.Sprintf(" seat %d %s %s;", p.Seat, p.Kind, cents(p.Amount))
			}
			return "PAID" + s
		}
		return "hands booked, no prize"
	case "void":
		return "round voided: bets returned"
	}
	return b.Booked.Kind
}

// controllerMetrics are the controller's Prometheus series.
type controllerMetrics struct {
	booked  *prometheus.CounterVec
	latency *prometheus.HistogramVec
	alarms  *prometheus.CounterVec
	value   *prometheus.GaugeVec
}

func newControllerMetrics() *controllerMetrics {
	return &controllerMetrics{
		booked: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "sabot", Subsystem: "progressive", Name: "bookings_total",
			Help: "Events booked, by pool and kind (bets, hands, void)."}, []string{"pool", "kind"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "sabot", Subsystem: "progressive", Name: "booking_latency_seconds",
			Help:    "From an event's arrival at the controller to its booking committed (the ordering window included).",
			Buckets: prometheus.ExponentialBuckets(0.005, 2, 12)}, []string{"pool"}),
		alarms: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "sabot", Subsystem: "progressive", Name: "alarms_total",
			Help: "Events refused with an alarm, by pool and code."}, []string{"pool", "code"}),
		value: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "sabot", Subsystem: "progressive", Name: "pool_cents",
			Help: "The pool's meter: value (the main pool), reserve, contributions, paid."}, []string{"pool", "meter"}),
	}
}

func (m *controllerMetrics) book(b progressive.Booking) {
	m.booked.WithLabelValues(b.Pool, b.Booked.Kind).Inc()
	m.latency.WithLabelValues(b.Pool).Observe(b.Done.Sub(b.Arrived).Seconds())
	mt := b.Booked.Meter
	for k, v := range map[string]int64{"value": mt.Value, "reserve": mt.Reserve, "contributions": mt.Contributions, "paid": mt.Paid} {
		m.value.WithLabelValues(b.Pool, k).Set(float64(v))
	}
}

func (m *controllerMetrics) alarm(a progressive.Alarm) {
	m.alarms.WithLabelValues(a.Pool, a.Code).Inc()
}

func progressiveVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("progressive verify", "--db DB", stderr)
	db := fs.String("db", "var/progressive.db", "the pools' database")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	l, err := ledger.Open(ctx, *db, nil)
	if err != nil {
		return err
	}
	defer l.Close()
	pools, err := l.PoolNames(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, p := range pools {
		m, err := l.Meter(ctx, p)
		if err != nil {
			return err
		}
		verr := l.Verify(ctx, p)
		ok := "ok"
		if m.Value+m.Reserve != m.Contributions-m.Paid+m.Funded {
			verr = errors.Join(verr, fmt.Errorf("pool %s: value %d + reserve %d ≠ contributions %d − paid %d + funded %d", p, m.Value, m.Reserve, m.Contributions, m.Paid, m.Funded))
		}
		if verr != nil {
			ok = "FAILED: " + verr.Error()
			errs = append(errs, verr)
		}
		fmt.Fprintf(stdout, "pool %s: value %s, reserve %s, contributions %s, paid %s in %d prizes, funded %s: %s\n",
			p, cents(m.Value), cents(m.Reserve), cents(m.Contributions), cents(m.Paid), m.Hits, cents(m.Funded), ok)
	}
	return errors.Join(errs...)
}

func progressiveMeter(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("progressive meter", "--db DB [--pool P]", stderr)
	db := fs.String("db", "var/progressive.db", "the pools' database")
	pool := fs.String("pool", "", "one pool (default: every pool)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	l, err := ledger.Open(ctx, *db, nil)
	if err != nil {
		return err
	}
	defer l.Close()
	pools := []string{*pool}
	if *pool == "" {
		if pools, err = l.PoolNames(ctx); err != nil {
			return err
		}
	}
	for _, p := range pools {
		m, err := l.Meter(ctx, p)
		if err != nil {
			return err
		}
		b, _ := json.Marshal(m)
		fmt.Fprintf(stdout, "%s\n", b)
	}
	return nil
}

// defaultPool is the development pool of `make run`: a $1,000 base, 70% of each bet to the
// pools (a fifth of it to a reserve), RULES.md §7's prize table, the random prizes of seed 002
// one round in 50, the house covering what the pools lack (RULES.md §7's reading).
func defaultPool() gp.Config {
	return gp.Config{Pool: "arica", Base: 100_000, Share: 7000, Reserves: []gp.Reserve{{Name: "reserve", Share: 2000}},
		Prizes: gp.DefaultTable(), MagicCard: 5_000, LuckyPlayer: 2_500, RandomOdds: 50, HouseCover: true}
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return fmt.Sprint([]string(*l)) }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }
