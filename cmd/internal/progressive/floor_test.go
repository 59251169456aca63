package progressive

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	floorview "github.com/sabot-tables/sabot/cmd/internal/floor"
	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/games/follow"
	gp "github.com/sabot-tables/sabot/games/progressive"
	"github.com/sabot-tables/sabot/games/progressive/ledger"
	"github.com/sabot-tables/sabot/games/progressive/ledger/pgtest"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/shoetest"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/bustest"
	"github.com/sabot-tables/sabot/tablebus/consumer"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/mosquittotest"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
	"github.com/sabot-tables/sabot/tablebus/outbox"
)

var (
	floorTables = flag.Int("floor-tables", 0, "TestFloor: deal a floor of this many simulated tables (0 skips it)")
	floorFor    = flag.Duration("floor-for", time.Minute, "TestFloor: how long the tables deal")
	floorRate   = flag.Duration("floor-every", 200*time.Millisecond, "TestFloor: each table's pace: one action (a card) per this")
)

// TestFloor is a floor of simulated tables (-floor-tables 200) through one real mosquitto: each
// table in this process deals at 5 cards a second into its own journal and outbox (the daemon's
// code), a quarter of them Caribbean stud with the progressive into five pools kept by the
// controller on PostgreSQL, the floor view follows every table's secure feed, and an engine per
// table (games/follow) follows its table. It reports what the issue asks: no event lost (every
// consumer holds every table's journal), the p99 from a card's event to the engines, the
// controller's booking latency, and the CPU and memory per table.
//
//	go test -run TestFloor -floor-tables 200 -floor-for 60s -v ./cmd/internal/progressive
func TestFloor(t *testing.T) {
	n := *floorTables
	if n == 0 {
		t.Skip("a floor of simulated tables: go test -run TestFloor -floor-tables 200 -v ./cmd/internal/progressive")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("T%03d", i+1)
	}
	keys := bustest.NewFloor(t, names...)
	signer := tablebus.NewSigner(bustest.Key(id))
	entries := append(slices.Clone(keys.Keyring.Keys), tablebus.KeyEntry{Kid: signer.KeyID(), Pub: tablebus.EncodePub(signer.Public()),
		Use: tablebus.UseProgressive, Table: "*", Name: id, NotBefore: bustest.Epoch})
	kr, err := tablebus.SignKeyring(tablebus.Keyring{Version: 2, Issued: bustest.Epoch, Keys: entries}, keys.Root)
	if err != nil {
		t.Fatal(err)
	}
	pg := pgtest.Start(t)
	l, err := ledger.Open(ctx, pg.DSN(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	game := func(i int) string {
		return []string{"caribbean-stud", "punto-banco", "blackjack", "punto-banco"}[i%4]
	}
	poolOf := map[string]string{}
	var pools []ledger.Pool
	for i, name := range names {
		if game(i) != "caribbean-stud" {
			continue
		}
		p := fmt.Sprintf("P%d", 1+len(poolOf)/10)
		poolOf[name] = p
		if len(pools) == 0 || pools[len(pools)-1].Pool != p {
			pools = append(pools, ledger.Pool{Config: gp.Config{Pool: p, Base: 1_000_000, Share: 7000, Prizes: gp.DefaultTable(), HouseCover: true}})
		}
		pools[len(pools)-1].Tables = append(pools[len(pools)-1].Tables, name)
	}
	for _, p := range pools {
		if err := l.Configure(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	br := mosquittotest.Start(t, mosquittotest.Options{Extra: "max_queued_messages 1000000\nset_tcp_nodelay true\nmax_inflight_messages 0\n"})
	dir := t.TempDir()
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		// The journals in memory: the figures are the bus's and the consumers', not the disk's
		// (a table's own journal is on its own machine's disk).
		if dir, err = os.MkdirTemp("/dev/shm", "sabot-floor-"); err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
	}

	var lat struct {
		sync.Mutex
		cards, booking, bookingFromTable []time.Duration
	}
	// The controller.
	cdone := make(chan error, 1)
	go func() {
		cdone <- Run(ctx, Options{ID: id, Ledger: l, Signer: signer, Keyring: kr, Root: keys.RootPub(), URL: br.URL(), Window: 50 * time.Millisecond,
			OnBooked: func(b Booking) {
				lat.Lock()
				lat.booking = append(lat.booking, b.Done.Sub(b.Arrived))
				lat.bookingFromTable = append(lat.bookingFromTable, b.Done.Sub(b.EventTS))
				lat.Unlock()
			}})
	}()
	defer func() { cancel(); <-cdone }()

	// The engines, one per table, and the floor view: two consumers of every secure feed.
	type seen struct {
		sync.Mutex
		seq map[string]uint64
	}
	engSeen, floorSeen := &seen{seq: map[string]uint64{}}, &seen{seq: map[string]uint64{}}
	followers := map[string]*follow.Follower{}
	for i, name := range names {
		eng, err := catalog.New(games.Config{Game: game(i), Options: progressiveOption(game(i))})
		if err != nil {
			t.Fatal(err)
		}
		followers[name] = follow.New(eng, catalog.Manage)
	}
	fl := floorview.New(floorview.Options{})
	// The engines acknowledge (the tables re-send what they do not), once a second per table: in
	// one process they share one connection, where a floor's engines have one each. The floor
	// view only looks, as sabot watch does.
	consume := func(cid string, ack consumer.AckMode, s *seen, on func(consumer.Delivery)) {
		client, err := mqttbus.Connect(ctx, mqttbus.Options{URL: br.URL(), ClientID: cid})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(client.Close)
		// Every table (the "+" filters, as sabot watch follows a floor): a filter per table
		// would make the client match each message against 600 routes.
		c, err := consumer.New(consumer.Options{ID: cid, Feed: tablebus.Secure, Keyring: kr, Root: keys.RootPub(), Ack: ack,
			AckEvery: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		go c.Run(ctx, client, consumer.Funcs{OnEvent: func(d consumer.Delivery) error {
			on(d)
			s.Lock()
			s.seq[d.Table] = d.Seq
			s.Unlock()
			return nil
		}})
		br.WaitSubscribed(t, cid, "sabot/v1/+/secure/events", 30*time.Second)
	}
	consume("engine.E1", consumer.AckDelivered, engSeen, func(d consumer.Delivery) {
		if d.Event.Type == tablebus.CardDealt {
			l := time.Since(d.Event.TS)
			lat.Lock()
			lat.cards = append(lat.cards, l)
			lat.Unlock()
		}
		followers[d.Table].Apply(d.Event)
	})
	consume("surveillance.F1", consumer.AckNone, floorSeen, func(d consumer.Delivery) {
		e := d.Event
		fl.Apply(floorview.Delivery{Event: &e})
	})

	// The tables.
	type table struct {
		name string
		mu   sync.Mutex
		tb   *shoetest.Table
		ob   *outbox.Outbox
		j    *journal.Journal
	}
	tables := make([]*table, n)
	var wg sync.WaitGroup
	for i, name := range names {
		j, err := journal.Open(filepath.Join(dir, name+".db"), name)
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		required := []string{"engine.E1"}
		if poolOf[name] != "" {
			required = append(required, id)
		}
		ob := outbox.NewWith(j, outbox.Options{Session: 1, Signer: keys.Tables[name], Keyring: kr.Raw(), Game: game(i), Required: required})
		client, err := mqttbus.Connect(ctx, mqttbus.Options{URL: br.URL(), ClientID: "sabotd-" + name, NextWill: ob.Will,
			OnConnect: func(*mqttbus.Client) { ob.Connected() }})
		if err != nil {
			t.Fatal(err)
		}
		defer client.Close()
		wg.Add(1)
		go func() { defer wg.Done(); ob.Run(ctx, client) }()
		ent, _ := catalog.Lookup(game(i))
		fam, _ := shoe.ParseFamily(ent.Family)
		proc, _ := shoe.ProcedureFor(fam, 0)
		eng, _ := catalog.New(games.Config{Game: game(i), Options: progressiveOption(game(i))})
		m, err := shoe.NewMachine(shoe.Config{Proc: proc, Engine: eng, Table: name, Manage: catalog.Manage, Progressive: poolOf[name]})
		if err != nil {
			t.Fatal(err)
		}
		tb := shoetest.NewTable(m, shoetest.NewDealer(game(i), proc, uint64(i+1)), time.Now())
		tb.Controller = true
		tb.Journal = func(input []byte, evs []tablebus.Event) error { return ob.Emit(ctx, input, evs) }
		tt := &table{name: name, tb: tb, ob: ob, j: j}
		tables[i] = tt
		if poolOf[name] != "" {
			client.Subscribe(ctx, tablebus.Topics{Table: name}.Award(), 1, func(msg mqttbus.Message) {
				var a tablebus.Award
				if _, err := tablebus.OpenProgressive(kr, msg.Topic, msg.Payload, &a); err != nil {
					t.Errorf("%s: award: %v", name, err)
					return
				}
				tt.mu.Lock()
				defer tt.mu.Unlock()
				tt.tb.Clock = time.Now()
				if _, err := tt.tb.Input(shoe.ProgressiveAward{Award: a, Time: tt.tb.Clock}); err != nil && !errors.Is(err, shoe.ErrRefused) {
					t.Errorf("%s: award: %v", name, err)
				}
			})
			tt.mu.Lock()
			if _, err := tb.Input(shoe.ProgressiveLink{Open: true, Time: time.Now()}); err != nil {
				t.Fatal(err)
			}
			tt.mu.Unlock()
		}
	}
	t.Logf("%d tables (%d with the progressive in %d pools) dealing for %v", n, len(poolOf), len(pools), *floorFor)

	var ru0 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	mq0 := procCPU(br.Pid())
	pg0 := pg.CPU()
	start := time.Now()
	deal, stop := context.WithCancel(ctx)
	var dealers sync.WaitGroup
	for i, tt := range tables {
		dealers.Add(1)
		go func() {
			defer dealers.Done()
			r := rand.New(rand.NewPCG(uint64(i), 1))
			select {
			case <-time.After(time.Duration(r.Int64N(int64(*floorRate)))):
			case <-deal.Done():
				return
			}
			tick := time.NewTicker(*floorRate)
			defer tick.Stop()
			for {
				select {
				case <-deal.Done():
					return
				case <-tick.C:
				}
				tt.mu.Lock()
				tt.tb.Clock = time.Now()
				_, err := tt.tb.Step()
				tt.mu.Unlock()
				if err != nil && !errors.Is(err, shoetest.ErrStuck) {
					t.Errorf("%s: %v", tt.name, err)
					return
				}
			}
		}()
	}
	var peakHeap uint64
	sample := time.NewTicker(time.Second)
	deadline := time.After(*floorFor)
dealing:
	for {
		select {
		case <-deadline:
			break dealing
		case <-sample.C:
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peakHeap = max(peakHeap, ms.HeapInuse)
		}
	}
	sample.Stop()
	stop()
	dealers.Wait()
	dealt := time.Since(start)
	var ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	mq1, pg1 := procCPU(br.Pid()), pg.CPU()

	// Nothing lost: every consumer reaches every table's last event.
	var events uint64
	last := map[string]uint64{}
	for _, tt := range tables {
		last[tt.name] = tt.ob.LastSeq()
		events += last[tt.name]
	}
	behind := func(s *seen) (n uint64) {
		s.Lock()
		defer s.Unlock()
		for name, seq := range last {
			if s.seq[name] < seq {
				n += seq - s.seq[name]
			}
		}
		return n
	}
	progBehind := func() (n uint64) {
		marks, _ := l.Marks(ctx)
		for name := range poolOf {
			if marks[name] < last[name] {
				n += last[name] - marks[name]
			}
		}
		return n
	}
	backlog := [3]uint64{behind(engSeen), behind(floorSeen), progBehind()}
	// Drain: wait while the consumers make progress; a consumer that stops short has lost events.
	drainStart := time.Now()
	prev, still := uint64(1<<63), 0
	check := time.NewTicker(time.Second)
	defer check.Stop()
	for ; ; <-check.C {
		b := behind(engSeen) + behind(floorSeen) + progBehind()
		if b == 0 {
			break
		}
		if b >= prev {
			if still++; still > 30 {
				t.Fatalf("events lost: the engines miss %d, the floor view %d, the controller %d, and nothing moved for 30 s",
					behind(engSeen), behind(floorSeen), progBehind())
			}
		} else {
			still = 0
		}
		prev = b
	}
	drained := time.Since(drainStart)
	var booked, hits int64
	for _, p := range pools {
		m := conserved(t, l, p.Pool)
		booked += int64(m.Version)
		hits += m.Hits
	}
	cpu := func(ru syscall.Rusage) time.Duration {
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	self := cpu(ru1) - cpu(ru0)
	lat.Lock()
	defer lat.Unlock()
	var rounds int
	for _, r := range fl.Pit().Totals() {
		rounds += r.Rounds
	}
	report := []string{
		fmt.Sprintf("tables %d (progressive %d in %d pools), dealt %v at one action per %v", n, len(poolOf), len(pools), dealt.Round(time.Second), *floorRate),
		fmt.Sprintf("events %d (%.0f/s), cards %d (%.1f/s per table), rounds %d; every event at the engines, the floor view and the controller: yes", events, float64(events)/dealt.Seconds(),
			len(lat.cards), float64(len(lat.cards))/dealt.Seconds()/float64(n), rounds),
		fmt.Sprintf("backlog when the dealing stopped: engines %d, floor view %d, controller %d events; drained in %v", backlog[0], backlog[1], backlog[2], drained.Round(time.Second)),
		fmt.Sprintf("card → engine latency: p50 %v, p99 %v, max %v", pct(lat.cards, 50), pct(lat.cards, 99), pct(lat.cards, 100)),
		fmt.Sprintf("controller bookings %d (%d prizes): arrival → committed p50 %v p99 %v (window 50ms); table event → committed p50 %v p99 %v",
			booked, hits, pct(lat.booking, 50), pct(lat.booking, 99), pct(lat.bookingFromTable, 50), pct(lat.bookingFromTable, 99)),
		fmt.Sprintf("CPU: this process (tables, outboxes, engines, floor view, controller) %.1f%% of a core = %.2f%% per table; mosquitto %.1f%%; PostgreSQL %.1f%%",
			100*self.Seconds()/dealt.Seconds(), 100*self.Seconds()/dealt.Seconds()/float64(n), 100*(mq1-mq0).Seconds()/dealt.Seconds(), 100*(pg1-pg0).Seconds()/dealt.Seconds()),
		fmt.Sprintf("CPU per event, every part of the floor in this process: %v (at 5 cards/s a table is about 15 events/s)", (self / time.Duration(max(events, 1))).Round(time.Microsecond)),
		fmt.Sprintf("memory: peak heap in use %d MiB = %d KiB per table; max RSS %d MiB", peakHeap>>20, peakHeap>>10/uint64(n), ru1.Maxrss>>10),
	}
	for _, s := range report {
		t.Log(s)
	}
	fmt.Println("floor of " + strconv.Itoa(n) + " tables:\n  " + strings.Join(report, "\n  "))
}

func progressiveOption(game string) map[string]string {
	if game == "caribbean-stud" {
		return map[string]string{"progressive": "controller"}
	}
	return nil
}

// pct is the p-th percentile of ds (100: the largest).
func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := min(len(s)-1, len(s)*p/100)
	return s[i].Round(100 * time.Microsecond)
}

// procCPU is a process's CPU time from /proc (utime + stime).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * time.Second / 100
}
