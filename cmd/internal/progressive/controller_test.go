package progressive

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	gp "github.com/sabot-tables/sabot/games/progressive"
	"github.com/sabot-tables/sabot/games/progressive/ledger"
	"github.com/sabot-tables/sabot/games/progressive/ledger/pgtest"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/bustest"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/mosquittotest"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
	"github.com/sabot-tables/sabot/tablebus/outbox"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

const id = "progressive.P1"

// floor is the test's floor: keys for T1, T2, T3 and the controller, a broker, a ledger.
type floor struct {
	t       *testing.T
	keys    *bustest.Floor
	kr      *tablebus.Keyring
	signer  *tablebus.Signer
	broker  *mosquittotest.Broker
	ledger  *ledger.Ledger
	dsn     string
	tables  map[string]*table
	alarms  chan Alarm
	booked  chan Booking
	window  time.Duration // the controller's ordering window (default 100 ms)
	stop    context.CancelFunc
	done    chan error
	spy     *mqttbus.Client
	mu      sync.Mutex
	awards  map[string][]tablebus.Award
	meters  []tablebus.Meter
	status  []tablebus.PoolStatus
	started time.Time
}

func newFloor(t *testing.T, dsn string, pools ...ledger.Pool) *floor {
	t.Helper()
	keys := bustest.NewFloor(t, "T1", "T2", "T3", "T9")
	signer := tablebus.NewSigner(bustest.Key(id))
	entries := append(slices.Clone(keys.Keyring.Keys), tablebus.KeyEntry{Kid: signer.KeyID(), Pub: tablebus.EncodePub(signer.Public()),
		Use: tablebus.UseProgressive, Table: "*", Name: id, NotBefore: bustest.Epoch})
	kr, err := tablebus.SignKeyring(tablebus.Keyring{Version: 2, Issued: bustest.Epoch, Keys: entries}, keys.Root)
	if err != nil {
		t.Fatal(err)
	}
	f := &floor{t: t, keys: keys, kr: kr, signer: signer, dsn: dsn, tables: map[string]*table{},
		alarms: make(chan Alarm, 100), booked: make(chan Booking, 1000), awards: map[string][]tablebus.Award{}}
	f.broker = mosquittotest.Start(t, mosquittotest.Options{Extra: "max_queued_messages 100000\nset_tcp_nodelay true\n"})
	f.openLedger()
	for _, p := range pools {
		if err := f.ledger.Configure(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	f.watch()
	return f
}

func (f *floor) openLedger() {
	l, err := ledger.Open(context.Background(), f.dsn, rand.NewChaCha8([32]byte{7}))
	if err != nil {
		f.t.Fatal(err)
	}
	f.ledger = l
	f.t.Cleanup(func() { l.Close() })
}

// watch follows what the controller publishes, verified.
func (f *floor) watch() {
	ctx := context.Background()
	spy, err := mqttbus.Connect(ctx, mqttbus.Options{URL: f.broker.URL(), ClientID: "spy"})
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(spy.Close)
	f.spy = spy
	spy.Subscribe(ctx, tablebus.Awards, 1, func(m mqttbus.Message) {
		var a tablebus.Award
		if _, err := tablebus.OpenProgressive(f.kr, m.Topic, m.Payload, &a); err != nil {
			f.t.Errorf("award on %s: %v", m.Topic, err)
			return
		}
		f.mu.Lock()
		f.awards[a.Table] = append(f.awards[a.Table], a)
		f.mu.Unlock()
	})
	spy.Subscribe(ctx, tablebus.ProgressiveRoot+"/meter/+", 1, func(m mqttbus.Message) {
		var mt tablebus.Meter
		if _, err := tablebus.OpenProgressive(f.kr, m.Topic, m.Payload, &mt); err != nil {
			f.t.Errorf("meter on %s: %v", m.Topic, err)
			return
		}
		f.mu.Lock()
		f.meters = append(f.meters, mt)
		f.mu.Unlock()
	})
	spy.Subscribe(ctx, tablebus.ProgressiveRoot+"/status/+", 1, func(m mqttbus.Message) {
		var st tablebus.PoolStatus
		if _, err := tablebus.OpenProgressive(f.kr, m.Topic, m.Payload, &st); err != nil {
			f.t.Errorf("status on %s: %v", m.Topic, err)
			return
		}
		f.mu.Lock()
		f.status = append(f.status, st)
		f.mu.Unlock()
	})
}

// start runs the controller in this process.
func (f *floor) start() {
	ctx, cancel := context.WithCancel(context.Background())
	f.stop = cancel
	f.done = make(chan error, 1)
	go func() {
		f.done <- Run(ctx, Options{ID: id, Ledger: f.ledger, Signer: f.signer, Keyring: f.kr, Root: f.keys.RootPub(), URL: f.broker.URL(),
			Window: cmp.Or(f.window, 100*time.Millisecond), OnAlarm: func(a Alarm) { f.alarms <- a }, OnBooked: func(b Booking) { f.booked <- b }})
	}()
	f.t.Cleanup(f.halt)
}

func (f *floor) halt() {
	if f.stop != nil {
		f.stop()
		if err := <-f.done; err != nil {
			f.t.Error(err)
		}
		f.stop = nil
	}
}

// table is a table's journal and outbox, publishing over the broker as a daemon does.
type table struct {
	id     string
	j      *journal.Journal
	ob     *outbox.Outbox
	client *mqttbus.Client
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func (f *floor) table(name string) *table {
	f.t.Helper()
	if tb, ok := f.tables[name]; ok {
		return tb
	}
	j, err := journal.Open(filepath.Join(f.t.TempDir(), name+".db"), name)
	if err != nil {
		f.t.Fatal(err)
	}
	session, _ := j.NewSession()
	ob := outbox.NewWith(j, outbox.Options{Session: session, Signer: f.keys.Tables[name], Keyring: f.kr.Raw(), Game: "caribbean-stud", Required: []string{id}})
	ctx, cancel := context.WithCancel(context.Background())
	client, err := mqttbus.Connect(ctx, mqttbus.Options{URL: f.broker.URL(), ClientID: "sabotd-" + name, NextWill: ob.Will,
		OnConnect: func(*mqttbus.Client) { ob.Connected() }})
	if err != nil {
		f.t.Fatal(err)
	}
	tb := &table{id: name, j: j, ob: ob, client: client, cancel: cancel}
	tb.wg.Add(1)
	go func() { defer tb.wg.Done(); ob.Run(ctx, client) }()
	f.t.Cleanup(func() { cancel(); tb.wg.Wait(); client.Close(); j.Close() })
	f.tables[name] = tb
	return tb
}

func (tb *table) emit(t *testing.T, evs ...tablebus.Event) {
	t.Helper()
	if err := tb.ob.Emit(context.Background(), nil, evs); err != nil {
		t.Fatal(err)
	}
}

func cards(t *testing.T, s string) []card.Card {
	t.Helper()
	cs, err := card.ParseList(s)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// round emits a round's progressive.bet and progressive.hand, with guidance between, at ts.
func (tb *table) round(t *testing.T, round uint64, ts time.Time, pool string, hands ...tablebus.Claim) {
	t.Helper()
	var bets []tablebus.Bet
	for _, h := range hands {
		bets = append(bets, tablebus.Bet{Seat: h.Seat, Spot: "progressive", Amount: h.Amount})
	}
	tb.emit(t, tablebus.Event{Type: tablebus.ProgressiveBet, Round: round, TS: ts, Pool: pool, Bets: bets},
		tablebus.Event{Type: tablebus.Guide, Round: round, TS: ts, State: "in-round"})
	tb.emit(t, tablebus.Event{Type: tablebus.ProgressiveHand, Round: round, TS: ts.Add(time.Second), Pool: pool, Claims: hands})
}

func claim(t *testing.T, seat int, hand string) tablebus.Claim {
	cs := cards(t, hand)
	return tablebus.Claim{Seat: seat, Amount: 500, Cards: cs}
}

// waitFor waits for cond, failing after limit (a condition, not a pause).
func waitFor(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", limit, what)
		}
		<-tick.C
	}
}

func (f *floor) award(table string, round uint64) *tablebus.Award {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range f.awards[table] {
		if a.Round == round {
			return &a
		}
	}
	return nil
}

func (f *floor) acked(table string) uint64 {
	m, _ := f.ledger.Marks(context.Background())
	return m[table]
}

func pool(name string, cover bool, tables ...string) ledger.Pool {
	return ledger.Pool{Config: gp.Config{Pool: name, Base: 100_000, Share: 7000, Reserves: []gp.Reserve{{Name: "reserve", Share: 2000}},
		Prizes: gp.DefaultTable(), HouseCover: cover}, Tables: tables}
}

var t0 = time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)

func conserved(t *testing.T, l *ledger.Ledger, pool string) ledger.Meter {
	t.Helper()
	m, err := l.Meter(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	if m.Value+m.Reserve != m.Contributions-m.Paid+m.Funded {
		t.Errorf("pool %s: %d + %d ≠ %d − %d + %d", pool, m.Value, m.Reserve, m.Contributions, m.Paid, m.Funded)
	}
	if err := l.Verify(context.Background(), pool); err != nil {
		t.Error(err)
	}
	return m
}

var stores = []struct {
	name string
	dsn  func(t *testing.T) string
}{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "progressive.db") }},
	{"postgresql", func(t *testing.T) string { return pgtest.DB(t) }},
}

// TestSameSecond: two tables hit the same pool within the window, the later one's event first on
// the bus: the earlier by the tables' clocks wins the whole pool, the other the pool that is
// left; each is paid once, and the table's events are acknowledged once booked.
func TestSameSecond(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			f := newFloor(t, st.dsn(t), pool("arica", true, "T1", "T2"))
			// The window is what "near-simultaneous" means: wide enough here that the two
			// tables' events, published one after the other, arrive within it on a loaded machine.
			f.window = 2 * time.Second
			f.start()
			t1, t2 := f.table("T1"), f.table("T2")
			f.broker.WaitSubscribed(t, "sabot-"+id+"-arica", "sabot/v1/T2/secure/events", 10*time.Second)
			royal := claim(t, 3, "As Ks Qs Js Ts")
			t1.round(t, 1, t0.Add(300*time.Millisecond), "arica", royal, claim(t, 5, "2c 7d 9h Js Kc"))
			t2.round(t, 1, t0.Add(100*time.Millisecond), "arica", royal)
			waitFor(t, "both awards", 20*time.Second, func() bool { return f.award("T1", 1) != nil && f.award("T2", 1) != nil })
			a1, a2 := f.award("T1", 1), f.award("T2", 1)
			// Bets: 3 × 500, 350 to the pools each (70 reserve): main 100,840. T2's royal flush
			// (its hand at 21:00:01.1) is booked first: the whole main pool; T1's (at 01.3) wins
			// the base the reserve and the house refilled.
			if len(a2.Payouts) != 1 || a2.Payouts[0].Amount != 100_840 || a2.Value != 100_840 {
				t.Errorf("T2's award %+v", a2)
			}
			if len(a1.Payouts) != 1 || a1.Payouts[0].Seat != 3 || a1.Payouts[0].Amount != 100_000 {
				t.Errorf("T1's award %+v", a1)
			}
			m := conserved(t, f.ledger, "arica")
			if m.Hits != 2 || m.Paid != 200_840 || m.Bets != 3 {
				t.Errorf("meter %+v", m)
			}
			waitFor(t, "the events acknowledged", 10*time.Second, func() bool { return f.acked("T1") == t1.ob.LastSeq() && f.acked("T2") == t2.ob.LastSeq() })
			f.mu.Lock()
			last := f.meters[len(f.meters)-1]
			online := len(f.status) > 0 && f.status[len(f.status)-1].Online
			f.mu.Unlock()
			if last.Value != m.Value || last.Hits != 2 || last.LastWin == nil || last.LastWin.Table != "T1" || !online {
				t.Errorf("meter published %+v, online %v", last, online)
			}
			f.halt()
			waitFor(t, "the offline status after the stop", 10*time.Second, func() bool {
				f.mu.Lock()
				defer f.mu.Unlock()
				return !f.status[len(f.status)-1].Online
			})
		})
	}
}

// TestBadInput: unsigned and foreign events, a contribution for an unknown pool or another
// pool, a prize larger than the pool: each refused with its reason and an alarm, the pool
// unchanged; a refused round's award says why.
func TestBadInput(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			f := newFloor(t, st.dsn(t), pool("arica", true, "T1", "T2"), pool("small", false, "T9"))
			f.start()
			t1, t9 := f.table("T1"), f.table("T9")
			// The spy publishes on T1's feed: QoS 1 to a filter nobody holds yet is dropped.
			f.broker.WaitSubscribed(t, "sabot-"+id+"-arica", "sabot/v1/T1/secure/events", 10*time.Second)
			f.broker.WaitSubscribed(t, "sabot-"+id+"-small", "sabot/v1/T9/secure/events", 10*time.Second)
			before := conserved(t, f.ledger, "arica")
			// An unsigned event, and one signed by T3's key, on T1's feed.
			spy := f.spy
			topic := tablebus.Topics{Table: "T1"}.SecureEvents()
			body, _ := tablebus.Event{V: 1, Seq: 1, Type: tablebus.ProgressiveBet, Table: "T1", Source: "table", Session: 1, TS: t0, Pool: "arica",
				Bets: []tablebus.Bet{{Seat: 1, Spot: "progressive", Amount: 100_000}}}.Marshal()
			spy.Publish(context.Background(), topic, body, 1, false)
			forged, _ := f.keys.Tables["T3"].SealChained(tablebus.DomainEvent, topic, tablebus.Hash{}, body)
			spy.Publish(context.Background(), topic, forged, 1, false)
			got := map[string]string{}
			for len(got) < 2 {
				select {
				case a := <-f.alarms:
					got[a.Code] = a.Detail
				case <-time.After(20 * time.Second):
					t.Fatalf("alarms %v", got)
				}
			}
			if _, ok := got["forged"]; !ok {
				t.Errorf("no forged alarm: %v", got)
			}
			if _, ok := got["key-not-valid"]; !ok {
				t.Errorf("no key-not-valid alarm: %v", got)
			}
			// T1's real feed: a bet for a pool the floor does not have, one for T9's pool.
			t1.emit(t, tablebus.Event{Type: tablebus.ProgressiveBet, Round: 1, TS: t0, Pool: "lima", Bets: []tablebus.Bet{{Seat: 1, Spot: "progressive", Amount: 500}}})
			t1.emit(t, tablebus.Event{Type: tablebus.ProgressiveBet, Round: 2, TS: t0, Pool: "small", Bets: []tablebus.Bet{{Seat: 1, Spot: "progressive", Amount: 500}}})
			// T9: four of a kind at 100 × 500, the small pool holding 100,250 plus its reserve.
			t9.round(t, 1, t0, "small", tablebus.Claim{Seat: 2, Amount: 1500, Cards: cards(t, "2c 2d 2h 2s 3c")})
			want := []string{
				`progressive.bet of round 1 refused: ledger: unknown pool "lima" (table T1 feeds pool arica)`,
				"progressive.bet of round 2 refused: ledger: table not connected to the pool: table T1 is connected to pool arica, its event names pool small",
				"progressive.hand of round 1 refused: ledger: progressive: prize larger than the pools hold: table T9 round 1: seat 2's four of a kind 100x prize of 150000 cents, the pools hold 101050 (the house does not cover pool small): held for a supervisor",
			}
			var refused []string
			for len(refused) < len(want) {
				select {
				case a := <-f.alarms:
					if a.Code == "refused" {
						refused = append(refused, a.Detail)
					}
				case <-time.After(20 * time.Second):
					t.Fatalf("refusals %q", refused)
				}
			}
			slices.Sort(refused)
			slices.Sort(want)
			if !slices.Equal(refused, want) {
				t.Errorf("refusals\n%q\nwant\n%q", refused, want)
			}
			waitFor(t, "T9's award", 10*time.Second, func() bool { return f.award("T9", 1) != nil })
			if a := f.award("T9", 1); a.OK || a.Error == "" {
				t.Errorf("T9's award %+v", a)
			}
			if after := conserved(t, f.ledger, "arica"); after.Version != before.Version || after.Value != before.Value {
				t.Errorf("arica changed: %+v, was %+v", after, before)
			}
			if m := conserved(t, f.ledger, "small"); m.Hits != 0 || m.Bets != 1 {
				t.Errorf("small: %+v", m)
			}
		})
	}
}

// TestFaults: the broker down 10 s, then (PostgreSQL) the database restarted, while three
// tables keep dealing; then the controller restarted on its database: every bet is booked once,
// every win paid once, the pool adds up to the cent, and nothing is lost.
func TestFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("a 10 s broker outage")
	}
	for _, st := range []string{"sqlite", "postgresql"} {
		t.Run(st, func(t *testing.T) {
			var srv *pgtest.Server
			dsn := filepath.Join(t.TempDir(), "progressive.db")
			if st == "postgresql" {
				srv = pgtest.Start(t)
				dsn = srv.DSN()
			}
			f := newFloor(t, dsn, pool("arica", true, "T1", "T2", "T3"))
			f.start()
			tables := []*table{f.table("T1"), f.table("T2"), f.table("T3")}
			r := rand.New(rand.NewPCG(3, 3))
			rounds := map[string]uint64{}
			var bet int64
			deal := func(n int) {
				for range n {
					tb := tables[r.IntN(3)]
					rounds[tb.id]++
					hand := []string{"2c 7d 9h Js Kc", "As Ks Qs Js Ts", "Kc Kd Kh 4s 4c", "3h 3d 8c 9s Ac"}[r.IntN(4)]
					tb.round(t, rounds[tb.id], t0.Add(time.Duration(rounds[tb.id])*time.Minute), "arica", claim(t, 1+r.IntN(7), hand))
					bet += 500
				}
			}
			deal(10)
			f.broker.Stop()
			outage := time.After(10 * time.Second)
			deal(10) // journaled, not published
			<-outage
			f.broker.Start(t)
			deal(10)
			if srv != nil {
				if err := srv.Restart(); err != nil {
					t.Fatal(err)
				}
				deal(10)
			}
			f.halt()
			f.start()
			deal(5)
			total := 0
			for _, n := range rounds {
				total += int(n)
			}
			waitFor(t, "every round booked and every event acknowledged", 60*time.Second, func() bool {
				for _, tb := range tables {
					if f.acked(tb.id) != tb.ob.LastSeq() {
						return false
					}
				}
				return true
			})
			m := conserved(t, f.ledger, "arica")
			if m.Turnover != bet || m.Bets != int64(total) {
				t.Errorf("meter %+v: want %d bets, %d cents", m, total, bet)
			}
			// Every win paid once: the hands booked are the rounds dealt, the prizes the awards'.
			var paid int64
			for _, tb := range tables {
				for rd := uint64(1); rd <= rounds[tb.id]; rd++ {
					b, ok, err := f.ledger.Booking(context.Background(), tb.id, rd, "hands")
					if err != nil || !ok {
						t.Fatalf("%s round %d: hands not booked (%v)", tb.id, rd, err)
					}
					for _, p := range b.Result.Payouts {
						paid += p.Amount
					}
				}
			}
			if paid != m.Paid {
				t.Errorf("the bookings paid %d, the meter says %d", paid, m.Paid)
			}
			t.Logf("%s: %d rounds, %d prizes, %s paid", st, total, m.Hits, fmt.Sprint(m.Paid))
		})
	}
}
