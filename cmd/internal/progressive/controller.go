// Package progressive is a floor's progressive controller (`sabot progressive serve`): one
// process that keeps the floor's pools (games/progressive/ledger, on PostgreSQL or SQLite) and
// talks to the tables over the bus (RULES.md §7; tablebus/progressive.go has the wire).
//
// For each pool it follows the secure feeds of the pool's tables (tablebus/consumer: verified,
// in order, once, replays of gaps), books each progressive.bet, progressive.hand and
// round.voided once, and acknowledges a table's events only once what they book is committed
// (the daemon re-sends the rest after a restart of either side). It publishes, sealed with its
// key, the pool's meter (retained), a status with its MQTT last will, and each round's award to
// its table (retained). Each pool has its own MQTT connection, so that its last will is its own.
//
// Near-simultaneous events of several tables are booked in a deterministic order: the earliest
// of the tables' first events, by the table's time then the table id, is booked once it has
// waited Window after it arrived; a table's own events keep their order. Two wins whose events
// reach the controller within Window of each other are booked in the order the tables dealt
// them, whichever came first on the bus. Bad input (an event of a table
// not connected to the pool, a pool this floor does not have, a prize larger than the pool, an
// unsigned or forged event) is refused with its reason and an alarm; the pool is unchanged, and
// a refused round's award says why, so that the table holds it for a supervisor.
package progressive

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	gp "github.com/sabot-tables/sabot/games/progressive"
	"github.com/sabot-tables/sabot/games/progressive/ledger"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/consumer"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

// Options configure a controller.
type Options struct {
	// ID is the controller's id: its MQTT account, its consumer id (it acknowledges on
	// sabot/v1/<table>/ack/<ID>), and the name of its key in the keyring.
	ID      string
	Ledger  *ledger.Ledger
	Signer  *tablebus.Signer
	Keyring *tablebus.Keyring
	Root    ed25519.PublicKey
	// The broker.
	URL, User, Password string
	TLS                 *tls.Config
	// Window is how long an event waits before it is booked, so that near-simultaneous events
	// of several tables are booked in the tables' order (default 200 ms).
	Window time.Duration
	Logger *slog.Logger
	// OnAlarm and OnBooked, when set, see every alarm and booking (metrics, tests).
	OnAlarm  func(Alarm)
	OnBooked func(Booking)
}

// Alarm is something a person must look at.
type Alarm struct {
	Pool   string
	Table  string
	Seq    uint64
	Code   string // "refused", or the consumer's ("forged", "unknown-key", …)
	Detail string
	At     time.Time
}

func (a Alarm) String() string {
	return fmt.Sprintf("pool %s table %s #%d %s: %s", a.Pool, a.Table, a.Seq, a.Code, a.Detail)
}

// Booking is one event booked.
type Booking struct {
	Pool    string
	Table   string
	Seq     uint64
	Type    tablebus.Type
	Booked  ledger.Booked
	EventTS time.Time // the table's time of the event
	Arrived time.Time // when it reached the controller
	Done    time.Time // when its booking was committed
}

// Run serves every pool the ledger was configured with until ctx is done.
func Run(ctx context.Context, o Options) error {
	if o.Window <= 0 {
		o.Window = 200 * time.Millisecond
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if err := tablebus.ValidConsumer(o.ID); err != nil {
		return fmt.Errorf("progressive: controller id: %w", err)
	}
	if _, err := o.Keyring.ProgressiveKey(o.Signer.KeyID(), time.Now()); err != nil {
		return fmt.Errorf("progressive: the controller's key is not in the keyring as a progressive key: %w", err)
	}
	pools := o.Ledger.Pools()
	if len(pools) == 0 {
		return errors.New("progressive: no pool configured")
	}
	session := uint64(time.Now().UnixMilli())
	var wg sync.WaitGroup
	errs := make(chan error, len(pools))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for _, p := range pools {
		s := &service{o: &o, pool: p, session: session, log: o.Logger.With("pool", p.Pool),
			queues: map[string][]item{}, seen: map[string]uint64{}, committed: map[string]uint64{},
			awards: map[string][]byte{}, wake: make(chan struct{}, 1)}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.run(ctx); err != nil && ctx.Err() == nil {
				errs <- fmt.Errorf("progressive: pool %s: %w", p.Pool, err)
				cancel()
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// service is one pool's: its connection, its tables' feeds, its bookings.
type service struct {
	o       *Options
	pool    ledger.Pool
	session uint64
	log     *slog.Logger
	client  *mqttbus.Client
	cons    *consumer.Consumer

	mu        sync.Mutex
	queues    map[string][]item // per table, the events to book, in order
	seen      map[string]uint64 // per table, the highest seq delivered
	committed map[string]uint64 // per table, the highest seq acknowledged
	meter     []byte            // the meter to publish (sealed), nil when published
	awards    map[string][]byte // per table, an award to publish
	online    bool
	wake      chan struct{}
}

type item struct {
	d       consumer.Delivery
	arrived time.Time
}

func (s *service) topics() tablebus.PoolTopics { return tablebus.PoolTopics{Pool: s.pool.Pool} }

func (s *service) status(online bool) *mqttbus.Will {
	st := tablebus.PoolStatus{Pool: s.pool.Pool, Controller: s.o.ID, Online: online, Session: s.session, TS: time.Now().UTC()}
	b, err := tablebus.SealProgressive(s.o.Signer, s.topics().Status(), st)
	if err != nil {
		s.log.Error("sealing the status", "err", err)
		return nil
	}
	return &mqttbus.Will{Topic: s.topics().Status(), Payload: b, Retain: true}
}

func (s *service) run(ctx context.Context) error {
	marks, err := s.o.Ledger.Marks(ctx)
	if err != nil {
		return err
	}
	from := map[string]uint64{}
	// Every table of the pool starts after its mark, or at its first event: a controller that
	// never saw a table asks for its whole feed, so that no contribution is left out.
	for _, t := range s.pool.Tables {
		from[t] = marks[t]
		s.committed[t], s.seen[t] = marks[t], marks[t]
	}
	s.cons, err = consumer.New(consumer.Options{ID: s.o.ID, Tables: s.pool.Tables, Feed: tablebus.Secure, Keyring: s.o.Keyring, Root: s.o.Root,
		From: from, Ack: consumer.AckCommitted, Logger: s.log})
	if err != nil {
		return err
	}
	s.client, err = mqttbus.Connect(ctx, mqttbus.Options{URL: s.o.URL, ClientID: "sabot-" + s.o.ID + "-" + s.pool.Pool,
		Username: s.o.User, Password: s.o.Password, TLS: s.o.TLS, Logger: s.log,
		NextWill:  func() *mqttbus.Will { return s.status(false) },
		OnConnect: func(*mqttbus.Client) { s.connected() }})
	if err != nil {
		return err
	}
	defer s.client.Close()
	if m, err := s.o.Ledger.Meter(ctx, s.pool.Pool); err == nil {
		s.setMeter(m)
	}
	s.log.Info("progressive controller serving the pool", "tables", s.pool.Tables, "db", s.o.Ledger.String(), "from", from)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.book(ctx) }()
	go func() { defer wg.Done(); s.publish(ctx) }()
	err = s.cons.Run(ctx, s.client, s)
	wg.Wait()
	if ctx.Err() == nil {
		return err
	}
	// A clean stop says offline itself (the will is for a death).
	pctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if w := s.status(false); w != nil {
		s.client.Publish(pctx, w.Topic, w.Payload, 1, true)
	}
	return nil
}

// connected publishes the online status and what is still to publish.
func (s *service) connected() {
	s.mu.Lock()
	s.online = true
	s.mu.Unlock()
	s.poke()
}

func (s *service) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Event takes one verified event of a table's feed (consumer.Handler).
func (s *service) Event(d consumer.Delivery) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[d.Table] = d.Seq
	switch d.Event.Type {
	case tablebus.ProgressiveBet, tablebus.ProgressiveHand, tablebus.RoundVoided:
		s.queues[d.Table] = append(s.queues[d.Table], item{d: d, arrived: time.Now()})
	}
	return nil
}

// Alarm reports what the consumer refused (an unsigned, forged or foreign-keyed event, a gap).
func (s *service) Alarm(a consumer.Alarm) {
	s.alarm(Alarm{Pool: s.pool.Pool, Table: a.Table, Seq: a.Seq, Code: a.Code, Detail: a.Detail, At: a.TS})
}

// State logs a table daemon's birth and death.
func (s *service) State(st consumer.State) { s.log.Info("table status", "state", st.String()) }

func (s *service) alarm(a Alarm) {
	s.log.Error("ALARM", "table", a.Table, "seq", a.Seq, "code", a.Code, "detail", a.Detail)
	if s.o.OnAlarm != nil {
		s.o.OnAlarm(a)
	}
}

// next returns the next event to book: the earliest, by the table's time then the table id,
// of the tables' first events, once it has waited the window since it arrived; while it waits,
// nothing else is booked, so that an event a table sent earlier than another's, arriving within
// the window after it, is still booked first.
func (s *service) next(now time.Time) (item, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var best *item
	for _, q := range s.queues {
		if len(q) == 0 {
			continue
		}
		h := &q[0]
		if best == nil || cmp.Or(h.d.Event.TS.Compare(best.d.Event.TS), cmp.Compare(h.d.Table, best.d.Table)) < 0 {
			best = h
		}
	}
	if best == nil || now.Sub(best.arrived) < s.o.Window {
		return item{}, false
	}
	return *best, true
}

// done removes a table's first event, booked.
func (s *service) done(table string) {
	s.mu.Lock()
	s.queues[table] = s.queues[table][1:]
	s.mu.Unlock()
}

// book books the queued events in order, and acknowledges what is booked.
func (s *service) book(ctx context.Context) {
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	flush := time.NewTicker(500 * time.Millisecond)
	defer flush.Stop()
	backoff := time.Duration(0)
	for {
		select {
		case <-ctx.Done():
			s.flushMarks(context.Background())
			return
		case <-tick.C:
		case <-flush.C:
			s.flushMarks(ctx)
			continue
		}
		for ctx.Err() == nil {
			it, ok := s.next(time.Now())
			if !ok {
				break
			}
			if err := s.bookOne(ctx, it); err != nil {
				// The database is away: the event stays first, and is booked when it is back.
				backoff = min(max(2*backoff, 100*time.Millisecond), 5*time.Second)
				s.log.Warn("booking failed; trying again", "table", it.d.Table, "seq", it.d.Seq, "err", err, "in", backoff)
				select {
				case <-ctx.Done():
				case <-time.After(backoff):
				}
				break
			}
			backoff = 0
			s.done(it.d.Table)
			s.commit(it.d.Table, it.d.Seq)
		}
	}
}

// committable is the highest seq of a table whose events are all booked: before its first
// queued event, or everything seen.
func (s *service) committable(table string) uint64 {
	if q := s.queues[table]; len(q) > 0 {
		return q[0].d.Seq - 1
	}
	return s.seen[table]
}

// commit acknowledges a table's events up to a booked one (the booking's transaction set the
// mark to it); flushMarks takes the acknowledgement further.
func (s *service) commit(table string, seq uint64) {
	s.mu.Lock()
	up := seq > s.committed[table]
	if up {
		s.committed[table] = seq
	}
	s.mu.Unlock()
	if up {
		s.cons.Commit(table, seq)
	}
}

// flushMarks records how far each table's feed is processed (the events that book nothing)
// and acknowledges it.
func (s *service) flushMarks(ctx context.Context) {
	s.mu.Lock()
	marks := map[string]uint64{}
	for t := range s.seen {
		if c := s.committable(t); c > s.committed[t] {
			marks[t] = c
		}
	}
	s.mu.Unlock()
	if len(marks) == 0 {
		return
	}
	if err := s.o.Ledger.SetMarks(ctx, marks); err != nil {
		s.log.Warn("recording the feeds' marks (tried again)", "err", err)
		return
	}
	s.mu.Lock()
	for t, c := range marks {
		s.committed[t] = c
	}
	s.mu.Unlock()
	for t, c := range marks {
		s.cons.Commit(t, c)
	}
}

// refusal reports whether a booking's error is the event's fault (refused, alarmed, done with)
// rather than the database's (tried again).
func refusal(err error) bool {
	for _, e := range []error{ledger.ErrConflict, ledger.ErrUnknownPool, ledger.ErrForeignTable, ledger.ErrNoBets,
		gp.ErrRound, gp.ErrShort, gp.ErrConfig} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func (s *service) bookOne(ctx context.Context, it item) error {
	ev := it.d.Event
	var b ledger.Booked
	var err error
	pool := ev.Pool
	switch ev.Type {
	case tablebus.ProgressiveBet:
		var stakes []gp.Stake
		for _, bet := range ev.Bets {
			stakes = append(stakes, gp.Stake{Seat: bet.Seat, Amount: bet.Amount})
		}
		b, err = s.checked(pool, ev, func() (ledger.Booked, error) {
			return s.o.Ledger.BookBets(ctx, ledger.Bets{Pool: pool, Table: ev.Table, Round: ev.Round, Seq: ev.Seq, At: ev.TS, Stakes: stakes})
		})
	case tablebus.ProgressiveHand:
		var bets []gp.Bet
		for _, c := range ev.Claims {
			bets = append(bets, gp.Bet{Seat: c.Seat, Amount: c.Amount, Cards: c.Cards, Folded: c.Folded, Void: c.Void})
		}
		b, err = s.checked(pool, ev, func() (ledger.Booked, error) {
			return s.o.Ledger.BookHands(ctx, ledger.Hands{Pool: pool, Table: ev.Table, Round: ev.Round, Seq: ev.Seq, At: ev.TS, Bets: bets})
		})
		if err == nil || refusal(err) {
			s.setAward(award(s.o.ID, s.pool.Pool, ev, b, err))
		}
	case tablebus.RoundVoided:
		var found bool
		b, found, err = s.o.Ledger.BookVoid(ctx, ledger.Void{Table: ev.Table, Round: ev.Round, Seq: ev.Seq, At: ev.TS})
		if err == nil && !found {
			return nil // a round without progressive bets
		}
	}
	if err != nil {
		if !refusal(err) {
			return err
		}
		s.alarm(Alarm{Pool: s.pool.Pool, Table: ev.Table, Seq: ev.Seq, Code: "refused", Detail: fmt.Sprintf("%s of round %d refused: %v", ev.Type, ev.Round, err), At: time.Now()})
		return nil
	}
	if !b.Again {
		s.setMeter(b.Meter)
	}
	if s.o.OnBooked != nil {
		s.o.OnBooked(Booking{Pool: s.pool.Pool, Table: ev.Table, Seq: ev.Seq, Type: ev.Type, Booked: b, EventTS: ev.TS, Arrived: it.arrived, Done: time.Now()})
	}
	return nil
}

// checked refuses an event for another pool than this service's before the ledger sees it: a
// pool the floor does not have, or a table connected to another.
func (s *service) checked(pool string, ev tablebus.Event, book func() (ledger.Booked, error)) (ledger.Booked, error) {
	if pool != s.pool.Pool {
		for _, p := range s.o.Ledger.Pools() {
			if p.Pool == pool {
				return ledger.Booked{}, fmt.Errorf("%w: table %s is connected to pool %s, its event names pool %s", ledger.ErrForeignTable, ev.Table, s.pool.Pool, pool)
			}
		}
		return ledger.Booked{}, fmt.Errorf("%w %q (table %s feeds pool %s)", ledger.ErrUnknownPool, pool, ev.Table, s.pool.Pool)
	}
	return book()
}

// award is the table's answer to a progressive.hand.
func award(id, pool string, ev tablebus.Event, b ledger.Booked, err error) tablebus.Award {
	a := tablebus.Award{V: tablebus.SchemaVersion, Controller: id, Pool: pool, Table: ev.Table, Round: ev.Round, Ref: ev.Seq, TS: time.Now().UTC()}
	if err != nil {
		a.Error = err.Error()
		return a
	}
	a.OK = true
	if r := b.Result; r != nil {
		// The main pool the prizes were paid from: after the void hands' bets came back out
		// (progressive-pool for `sabot games round`).
		a.Value = r.Before.Main
		for _, rt := range b.Returned {
			for _, src := range rt.From {
				if src.Pool == "main" {
					a.Value -= src.Amount
				}
			}
		}
		for _, p := range r.Payouts {
			pp := tablebus.PrizePaid{Seat: p.Seat, Kind: p.Kind, Amount: p.Amount}
			if p.Kind == "hand" {
				pp.Category, pp.Prize = p.Category.String(), p.Prize.String()
			}
			a.Payouts = append(a.Payouts, pp)
		}
		if d := r.Draw; d != nil {
			a.Draw = &tablebus.PrizeDraw{Kind: d.Kind, Seat: d.Seat}
			if d.Kind == gp.MagicCard {
				c := d.Card
				a.Draw.Card = &c
			}
		}
	}
	for _, rt := range b.Returned {
		a.Returned = append(a.Returned, tablebus.Stake{Seat: rt.Seat, Amount: rt.Amount})
	}
	return a
}

func (s *service) setAward(a tablebus.Award) {
	topic := tablebus.Topics{Table: a.Table}.Award()
	p, err := tablebus.SealProgressive(s.o.Signer, topic, a)
	if err != nil {
		s.log.Error("sealing an award", "err", err)
		return
	}
	s.mu.Lock()
	s.awards[a.Table] = p
	s.mu.Unlock()
	s.poke()
}

// MeterOf is a ledger meter on the wire.
func MeterOf(id string, m ledger.Meter) tablebus.Meter {
	w := tablebus.Meter{V: tablebus.SchemaVersion, Pool: m.Pool, Controller: id, Value: m.Value, Reserve: m.Reserve,
		Contributions: m.Contributions, Turnover: m.Turnover, Bets: m.Bets, Hits: m.Hits, Paid: m.Paid, Version: m.Version, TS: time.Now().UTC()}
	if l := m.LastWin; l != nil {
		w.LastWin = &tablebus.LastWin{Table: l.Table, Round: l.Round, Seat: l.Seat, Kind: l.Kind, Category: l.Category, Amount: l.Amount, At: l.At}
	}
	return w
}

func (s *service) setMeter(m ledger.Meter) {
	p, err := tablebus.SealProgressive(s.o.Signer, s.topics().Meter(), MeterOf(s.o.ID, m))
	if err != nil {
		s.log.Error("sealing the meter", "err", err)
		return
	}
	s.mu.Lock()
	s.meter = p
	s.mu.Unlock()
	s.poke()
}

// publish publishes the status at each connection, and the latest meter and awards, until
// each is through.
func (s *service) publish(ctx context.Context) {
	retry := time.NewTicker(time.Second)
	defer retry.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-retry.C:
		}
		s.mu.Lock()
		online := s.online
		s.online = false
		meter := s.meter
		awards := map[string][]byte{}
		for t, a := range s.awards {
			awards[t] = a
		}
		s.mu.Unlock()
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if online {
			if w := s.status(true); w != nil {
				if err := s.client.Publish(pctx, w.Topic, w.Payload, 1, true); err != nil {
					s.mu.Lock()
					s.online = true // again at the next try
					s.mu.Unlock()
				}
			}
		}
		if meter != nil {
			if err := s.client.Publish(pctx, s.topics().Meter(), meter, 1, true); err == nil {
				s.mu.Lock()
				if string(s.meter) == string(meter) {
					s.meter = nil
				}
				s.mu.Unlock()
			}
		}
		tables := make([]string, 0, len(awards))
		for t := range awards {
			tables = append(tables, t)
		}
		slices.Sort(tables)
		for _, t := range tables {
			if err := s.client.Publish(pctx, tablebus.Topics{Table: t}.Award(), awards[t], 1, true); err == nil {
				s.mu.Lock()
				if string(s.awards[t]) == string(awards[t]) {
					delete(s.awards, t)
				}
				s.mu.Unlock()
			}
		}
		cancel()
	}
}
