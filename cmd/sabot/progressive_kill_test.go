package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/games/progressive/ledger"
	"github.com/sabot-tables/sabot/games/progressive/ledger/pgtest"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/mosquittotest"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

// TestProgressiveControllerKilled: two Caribbean stud tables (sabotd --sim) deal into one pool
// while the controller (sabot progressive serve, on PostgreSQL) is killed with SIGKILL six
// times, each when its pool's meter has moved 1 to 6 bookings past where it started: mid-way
// through the tables' rounds. A round whose award does not come within --progressive-wait is
// held and the simulated supervisor voids it. At the end the pool agrees with the tables'
// journals to the cent: every award a table applied was booked once, with the same prizes;
// every voided round was given back; the pool is its contributions less its prizes plus what
// the house put in.
func TestProgressiveControllerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	out, err := exec.Command("go", "build", "-o", dir+"/", "github.com/sabot-tables/sabot/cmd/sabotd", "github.com/sabot-tables/sabot/cmd/sabot").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	pg := pgtest.Start(t)
	br := mosquittotest.Start(t, mosquittotest.Options{Extra: "max_queued_messages 100000\nset_tcp_nodelay true\n"})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	spy, err := mqttbus.Connect(ctx, mqttbus.Options{URL: br.URL(), ClientID: "spy"})
	if err != nil {
		t.Fatal(err)
	}
	defer spy.Close()
	var version atomic.Uint64
	acks := map[string]*atomic.Uint64{"T1": {}, "T2": {}}
	spy.Subscribe(ctx, tablebus.PoolTopics{Pool: "arica"}.Meter(), 1, func(m mqttbus.Message) {
		var mt tablebus.Meter
		if json.Unmarshal(m.Payload, &mt) == nil {
			version.Store(max(version.Load(), mt.Version))
		}
	})
	// The awards the tables apply, as their public feeds say (each once, whatever is re-sent).
	var awardsMu sync.Mutex
	awards := map[string]bool{}
	for _, tb := range []string{"T1", "T2"} {
		spy.Subscribe(ctx, tablebus.Topics{Table: tb}.PublicEvents(), 1, func(m mqttbus.Message) {
			if e, err := tablebus.Decode(m.Payload); err == nil && e.Type == tablebus.ProgressiveAward {
				awardsMu.Lock()
				awards[fmt.Sprint(e.Table, e.Seq)] = true
				awardsMu.Unlock()
			}
		})
	}
	awardsSeen := func() int {
		awardsMu.Lock()
		defer awardsMu.Unlock()
		return len(awards)
	}
	// The session of each table's last online status: a restarted table is up once it is new.
	online := map[string]*atomic.Uint64{"T1": {}, "T2": {}}
	for tb, o := range online {
		spy.Subscribe(ctx, tablebus.Topics{Table: tb}.Status(), 1, func(m mqttbus.Message) {
			var st tablebus.Status
			if json.Unmarshal(m.Payload, &st) == nil && st.Online {
				o.Store(max(o.Load(), st.Session))
			}
		})
	}
	for tb, a := range acks {
		spy.Subscribe(ctx, tablebus.Topics{Table: tb}.Ack("progressive.dev"), 1, func(m mqttbus.Message) {
			if ack, err := tablebus.DecodeAck(m.Topic, m.Payload); err == nil {
				a.Store(max(a.Load(), ack.Seq))
			}
		})
	}
	keys := filepath.Join(dir, "keys")
	daemons := map[string]*exec.Cmd{}
	start := func(tb string, seed int, pace string) {
		d := exec.CommandContext(ctx, filepath.Join(dir, "sabotd"), "--sim", "--shoe", "reader", "--sim-seed", fmt.Sprint(seed),
			"--sim-pace", pace, "--table", tb, "--game", "caribbean-stud", "--mqtt", br.URL(), "--journal", filepath.Join(dir, tb+".db"),
			"--quiet", "--log-level", "error", "--progressive-pool", "arica", "--progressive-wait", "2s", "--require-ack", "progressive.dev")
		d.Stderr = os.Stderr
		if err := d.Start(); err != nil {
			t.Fatal(err)
		}
		daemons[tb] = d
	}
	stop := func() {
		for tb, d := range daemons {
			d.Process.Signal(syscall.SIGTERM)
			if err := d.Wait(); err != nil {
				t.Fatalf("sabotd %s: %v", tb, err)
			}
			delete(daemons, tb)
		}
	}
	for i, tb := range []string{"T1", "T2"} {
		start(tb, len(tb)+i, "5ms")
	}
	defer func() {
		for _, d := range daemons {
			d.Process.Signal(syscall.SIGTERM)
			d.Wait()
		}
	}()
	eventually(t, "the tables' keys", 30*time.Second, func() bool {
		_, e1 := os.Stat(filepath.Join(keys, "table-T1.key"))
		_, e2 := os.Stat(filepath.Join(keys, "table-T2.key"))
		return e1 == nil && e2 == nil
	})
	controller := func() *exec.Cmd {
		cmd := exec.CommandContext(ctx, filepath.Join(dir, "sabot"), "progressive", "serve", "--dev-table", "T1", "--dev-table", "T2",
			"--dev-keys", keys, "--db", pg.DSN(), "--mqtt", br.URL(), "--window", "50ms")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	rng := newTestRand()
	for k := 0; k < 6; k++ {
		at := version.Load() + uint64(1+rng.IntN(6))
		cmd := controller()
		eventually(t, "the controller booking", time.Minute, func() bool { return version.Load() >= at })
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}
	final := controller()
	defer func() { final.Process.Signal(syscall.SIGTERM); final.Wait() }()
	// Dealt on until ten bookings more and ten awards applied in all: how many rounds the kills
	// leave to award depends on the machine's speed, not on the pool.
	at := version.Load() + 10
	eventually(t, "the last controller booking, and ten awards applied", 2*time.Minute, func() bool { return version.Load() >= at && awardsSeen() >= 10 })
	stop()

	// The tables' journals: each round's progressive bets, the award applied or the void.
	type round struct {
		bet     int64
		claims  map[int]tablebus.Claim
		award   *tablebus.Event
		voided  bool
		settled bool
	}
	read := func() (rounds map[string]map[uint64]*round, last map[string]uint64) {
		rounds, last = map[string]map[uint64]*round{}, map[string]uint64{}
		for _, tb := range []string{"T1", "T2"} {
			j, err := journal.OpenReadOnly(filepath.Join(dir, tb+".db"))
			if err != nil {
				t.Fatal(err)
			}
			rounds[tb] = map[uint64]*round{}
			err = j.Range(ctx, 1, j.NextSeq(), func(r journal.Record) error {
				var e tablebus.Event
				if err := json.Unmarshal(r.Secure, &e); err != nil {
					return err
				}
				rd := rounds[tb][e.Round]
				switch e.Type {
				case tablebus.ProgressiveBet, tablebus.ProgressiveHand, tablebus.RoundVoided:
					last[tb] = e.Seq // what the controller must book (the feed's very last events may not have left before the stop)
				}
				switch e.Type {
				case tablebus.ProgressiveBet:
					rd = &round{claims: map[int]tablebus.Claim{}}
					rounds[tb][e.Round] = rd
					for _, b := range e.Bets {
						rd.bet += b.Amount
					}
				case tablebus.ProgressiveHand:
					for _, c := range e.Claims {
						rd.claims[c.Seat] = c
					}
				case tablebus.ProgressiveAward:
					ev := e
					rd.award = &ev
				case tablebus.RoundVoided:
					if rd != nil {
						rd.voided = true
					}
				case tablebus.RoundSettled:
					if rd != nil {
						rd.settled = true
					}
				}
				return nil
			})
			j.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
		return rounds, last
	}
	// Everything the tables journaled to book reaches the controller once both are back. A
	// stopped table publishes nothing: what the controller missed while it was down (its
	// re-sends backed off, or the stop came first) goes out at the table's next start, from
	// the controller's acknowledgement (--require-ack). So the tables start again, with a
	// dealer too slow to deal, and the test waits for the acknowledgements there.
	_, last := read()
	t.Logf("at the stop: journaled to book T1 %d T2 %d, acknowledged T1 %d T2 %d", last["T1"], last["T2"], acks["T1"].Load(), acks["T2"].Load())
	was := map[string]uint64{"T1": online["T1"].Load(), "T2": online["T2"].Load()}
	for i, tb := range []string{"T1", "T2"} {
		start(tb, len(tb)+i, "1h")
	}
	eventually(t, "the tables online again", time.Minute, func() bool {
		return online["T1"].Load() > was["T1"] && online["T2"].Load() > was["T2"]
	})
	eventually(t, "every progressive event acknowledged", 2*time.Minute, func() bool {
		return acks["T1"].Load() >= last["T1"] && acks["T2"].Load() >= last["T2"]
	})
	stop()
	// Read again: the start may have finished a held round (its award, or the void).
	rounds, last := read()
	eventually(t, "every progressive event acknowledged after the second stop", 30*time.Second, func() bool {
		return acks["T1"].Load() >= last["T1"] && acks["T2"].Load() >= last["T2"]
	})
	final.Process.Signal(syscall.SIGTERM)
	final.Wait()

	l, err := ledger.Open(ctx, pg.DSN(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var turnover, paid int64
	applied, voided := 0, 0
	for tb, rs := range rounds {
		for n, rd := range rs {
			switch {
			case rd.voided:
				voided++
				if _, ok, err := l.Booking(ctx, tb, n, "void"); err != nil || !ok {
					t.Errorf("%s round %d voided at the table, not at the controller (%v)", tb, n, err)
				}
			case rd.award != nil:
				applied++
				if !rd.settled {
					t.Errorf("%s round %d: award applied, round not settled", tb, n)
				}
				b, ok, err := l.Booking(ctx, tb, n, "hands")
				if err != nil || !ok {
					t.Fatalf("%s round %d: the table applied an award the controller never booked (%v)", tb, n, err)
				}
				if got, want := payoutsOf(b), prizesOf(rd.award.Payouts); got != want {
					t.Errorf("%s round %d: the table applied %s, the controller booked %s", tb, n, want, got)
				}
				for _, p := range rd.award.Payouts {
					paid += p.Amount
				}
				for _, c := range rd.claims {
					if !c.Void {
						turnover += c.Amount
					}
				}
			default:
				// The last round, dealt when the tables stopped: booked as bets only.
				turnover += rd.bet
			}
		}
	}
	m, err := l.Meter(ctx, "arica")
	if err != nil {
		t.Fatal(err)
	}
	if m.Turnover != turnover || m.Paid != paid {
		t.Errorf("the pool's turnover %d and prizes %d; the tables' journals say %d and %d", m.Turnover, m.Paid, turnover, paid)
	}
	if m.Value+m.Reserve != m.Contributions-m.Paid+m.Funded {
		t.Errorf("pool %+v does not add up", m)
	}
	if err := l.Verify(ctx, "arica"); err != nil {
		t.Error(err)
	}
	if applied < 10 {
		t.Errorf("only %d rounds applied an award", applied)
	}
	t.Logf("%d rounds with an award applied, %d voided, turnover %d, prizes %d (%d), pool %d", applied, voided, turnover, paid, m.Hits, m.Value)
}

func payoutsOf(b ledger.Booked) string {
	var ps []tablebus.PrizePaid
	if b.Result != nil {
		for _, p := range b.Result.Payouts {
			ps = append(ps, tablebus.PrizePaid{Seat: p.Seat, Kind: p.Kind, Amount: p.Amount})
		}
	}
	return prizesOf(ps)
}

func prizesOf(ps []tablebus.PrizePaid) string {
	s := ""
	for _, p := range ps {
		s += fmt.Sprintf("[seat %d %s %d]", p.Seat, p.Kind, p.Amount)
	}
	return s
}
