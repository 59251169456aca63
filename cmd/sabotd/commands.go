package main

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/access"
	"github.com/sabot-tables/sabot/tablebus/broker"
	"github.com/sabot-tables/sabot/tablebus/brokerconf"
	"github.com/sabot-tables/sabot/tablebus/keystore"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
	"github.com/sabot-tables/sabot/tablebus/outbox"
)

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// commandInput turns a dealer-terminal command into what the shoe loop takes.
func commandInput(c tablebus.Command, now time.Time) (any, error) {
	switch c.Cmd {
	case "new-shoe":
		return shoe.StartShoe{By: c.Dealer, Attest: c.Attest}, nil
	case "end-shoe":
		return shoe.EndShoe{By: c.Dealer, Time: now}, nil
	case "count":
		return shoe.CountLeft{By: c.Dealer}, nil
	case "cutcard-out":
		// The dealer saw the stop card come out of a shoe whose reader does not report it.
		return shoe.Read{Kind: shoe.ReadCut, Time: now}, nil
	case "cut":
		return shoe.CutDone{At: c.At, Dealer: c.Dealer, Time: now}, nil
	case "cutcard":
		return shoe.CutCardPlaced{Behind: c.Behind, Dealer: c.Dealer, Time: now}, nil
	case "bets":
		return shoe.OpenRound{Bets: tablebus.GameBets(c.Bets), Dealer: c.Dealer, Time: now}, nil
	case "decision":
		return shoe.PlayerDecision{Seat: c.Seat, Choice: c.Choice, Dealer: c.Dealer, Time: now}, nil
	case "manual":
		if c.Card == nil {
			return nil, fmt.Errorf("manual: no card given")
		}
		return shoe.ManualCard{Card: *c.Card, Dealer: c.Dealer, Supervisor: c.Supervisor, Time: now}, nil
	case "void":
		return shoe.VoidRound{Reason: c.Reason, Dealer: c.Dealer, Supervisor: c.Supervisor, Time: now}, nil
	case "table":
		return shoe.TableAction{Action: games.Action{Action: c.Action, Seat: c.Seat, Amount: c.Amount}, Dealer: c.Dealer, Time: now}, nil
	case "open":
		return shoe.TableOp{Op: shoe.OpOpen, By: c.Dealer, Approved: c.Supervisor, Time: now}, nil
	case "close":
		return shoe.TableOp{Op: shoe.OpClose, By: c.Dealer, Approved: c.Supervisor, Time: now}, nil
	case "sign-in":
		return shoe.TableOp{Op: shoe.OpSignIn, By: c.Dealer, Time: now}, nil
	case "sign-out":
		return shoe.TableOp{Op: shoe.OpSignOut, By: c.Dealer, Reason: c.Reason, Time: now}, nil
	case "limits":
		ls := tablebus.GameLimits(c.Limits)
		if ls == nil {
			ls = []games.Limit{} // every limit lifted
		}
		return shoe.ChangeLimits{Limits: ls, Dealer: c.Dealer, Supervisor: c.Supervisor, Time: now}, nil
	}
	return nil, fmt.Errorf("unknown command %q", c.Cmd)
}

// serveCommands applies the commands published on the table's command topic, one at a time,
// and answers each on the reply topic. Each must be signed by a key the keyring gives a role
// allowed to give it (tablebus.CommandGuard). Every command not applied, whatever the reason
// (unsigned, forged, not allowed, refused by the table, 64 waiting already: busy), is journaled
// and published as a fault before its answer (refusals); the daemon carries on.
func serveCommands(ctx context.Context, client *mqttbus.Client, topics tablebus.Topics, loop *shoe.Loop, guard *tablebus.CommandGuard, ob *outbox.Outbox, log *slog.Logger) error {
	type arrived struct {
		mqttbus.Message
		at time.Time // freshness is judged when a command arrives, not when its turn comes
	}
	rec := newRefusals(ob, client, topics, log)
	recDone := make(chan error, 1)
	rctx, stopRec := context.WithCancel(context.WithoutCancel(ctx))
	go func() { recDone <- rec.run(rctx) }()
	defer func() {
		// The refusals already made are journaled before the daemon goes on stopping.
		stopRec()
		<-recDone
	}()
	cmds := make(chan arrived, 64)
	if err := client.Subscribe(ctx, topics.Commands(), 1, func(m mqttbus.Message) {
		select {
		case cmds <- arrived{m, time.Now()}:
		default:
			// The table is busy (a shuffle takes minutes) and 64 commands wait: say so now
			// rather than let the broker's queue drop this one unanswered. The subscription's
			// handler does not wait for the journal: the record and the answer follow.
			rec.refuse(m.Payload, time.Now(), "busy", "", errors.New("busy: too many commands waiting; send it again"), nil)
		}
	}); err != nil {
		return err
	}
	for {
		var m arrived
		select {
		case <-ctx.Done():
			return nil
		case err := <-recDone:
			recDone <- err
			return err
		case m = <-cmds:
		}
		if m.Retained {
			// Never applied (commands must not be retained), so recorded like any refusal.
			if err := rec.refuseWait(ctx, m.Payload, m.at, "retained", "", errors.New("a retained command is never applied (commands must not be retained)")); err != nil {
				return err
			}
			continue
		}
		reply := tablebus.Reply{V: tablebus.SchemaVersion}
		c, key, err := guard.Check(m.Topic, m.Payload, m.at)
		if err != nil {
			if err := rec.refuseWait(ctx, m.Payload, m.at, guardKind(err), "", err); err != nil {
				return err
			}
			continue
		}
		log.Info("signed command", "cmd", c.Cmd, "id", c.ID, "by", key.Name, "role", key.Role, "kid", key.Kid)
		reply.ID, reply.Cmd = c.ID, c.Cmd
		in, err := commandInput(c, time.Now())
		kind := "invalid"
		if err == nil {
			err = loop.Do(ctx, in)
			kind = "failed" // a device's error (journaled as a device fault too)
			if errors.Is(err, shoe.ErrRefused) {
				kind = "refused-by-table"
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, shoe.ErrSink) {
			return err
		}
		if err != nil {
			if err := rec.refuseWait(ctx, m.Payload, m.at, kind, key.Name, err); err != nil {
				return err
			}
			continue
		}
		reply.OK = true
		log.Info("command applied", "cmd", reply.Cmd, "id", reply.ID)
		b, _ := json.Marshal(reply)
		if err := client.Publish(ctx, topics.Replies(), b, 1, false); err != nil && ctx.Err() == nil {
			log.Warn("publishing a command reply", "err", err)
		}
	}
}

// guardKind names, in a word, why the guard refused a command.
func guardKind(err error) string {
	for _, k := range []struct {
		err  error
		kind string
	}{{tablebus.ErrUnsigned, "unsigned"}, {tablebus.ErrBadSignature, "bad-signature"}, {tablebus.ErrUnknownKey, "unknown-key"},
		{tablebus.ErrRevokedKey, "revoked-key"}, {tablebus.ErrKeyNotValid, "key-not-valid"}} {
		if errors.Is(err, k.err) {
			return k.kind
		}
	}
	return "not-allowed" // undecodable, out of its time window, a replay, a role's command it may not give
}

// refusalBudget is how many refused commands a second are journaled one by one; the others
// are counted, and the count journaled every overflowEvery.
const (
	refusalBudget = 32
	overflowEvery = 250 * time.Millisecond
)

// refusals journals every refused command as a fault event (code command-refused, the reason
// in a word as its reason), in the order refused, and then answers it. A record costs a journal
// append (sealing and a share of an fsync), so a flood of commands could outrun the disk and
// fill the memory: each second, the first refusalBudget refusals are journaled one by one, with
// the command, its id, its signer and the reason; the rest of that second are counted into one
// fault that says how many were refused, for which reasons, which commands and from which
// keys, journaled within a quarter of a second. At most 2×refusalBudget records wait in memory,
// and the counts are bounded by the reasons and command names (the keys named are at most 8),
// so a flood costs the journal at most refusalBudget+4 events a second and none is silently
// dropped. The counted ones are not answered one by one, nor waited for. What people see is rate-limited: one
// log warning a second, and the web view gathers the faults of one reason into one alert.
type refusals struct {
	ob     *outbox.Outbox
	client *mqttbus.Client
	topics tablebus.Topics
	log    *slog.Logger

	mu      sync.Mutex
	pending []refusal
	over    *overflow
	second  time.Time // the second the budget is counted in
	n       int       // refusals of that second recorded one by one
	warned  time.Time
	quiet   int // refusals not warned of since
	wake    chan struct{}
}

type refusal struct {
	at                time.Time
	kind, cmd, id, by string
	err               error
	done              chan error // the waiting command loop's, or nil
	answer            bool       // publish the error reply after journaling
}

// overflow counts the refusals beyond the budget.
type overflow struct {
	from        time.Time // when the first was counted
	first, last time.Time // when the commands counted arrived
	n           int
	kinds       map[string]int
	cmds        map[string]int
	keys        map[string]int
}

func minTime(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func newRefusals(ob *outbox.Outbox, client *mqttbus.Client, topics tablebus.Topics, log *slog.Logger) *refusals {
	return &refusals{ob: ob, client: client, topics: topics, log: log, wake: make(chan struct{}, 1)}
}

// refuse records a refused command (its payload as it came) and answers it once journaled;
// done, if not nil, is told when the record is on disk. It never blocks.
func (r *refusals) refuse(payload []byte, at time.Time, kind, by string, err error, done chan error) {
	f := refusal{at: at, kind: kind, by: by, err: err, done: done}
	if d, derr := tablebus.DecodeCommand(payload); derr == nil {
		f.cmd, f.id = d.Cmd, d.ID
		if by == "" && d.Kid != "" {
			f.by = "key " + d.Kid + " (unverified)"
		}
	}
	now := time.Now() // the budget runs on the time of refusal: a queued command arrived earlier
	r.mu.Lock()
	if sec := now.Truncate(time.Second); !sec.Equal(r.second) {
		r.second, r.n = sec, 0
	}
	if r.n < refusalBudget && len(r.pending) < 2*refusalBudget {
		r.n++
		r.pending = append(r.pending, f)
	} else {
		if r.over == nil {
			r.over = &overflow{from: now, first: at, kinds: map[string]int{}, cmds: map[string]int{}, keys: map[string]int{}}
		}
		o := r.over
		o.n++
		o.first, o.last = minTime(o.first, at), maxTime(o.last, at)
		o.kinds[kind]++
		o.cmds[cmp.Or(f.cmd, "(undecodable)")]++
		by := cmp.Or(f.by, "no key")
		if _, ok := o.keys[by]; ok || len(o.keys) < 8 {
			o.keys[by]++
		} else {
			o.keys["other keys"]++
		}
		if done != nil {
			done <- nil // counted, not answered: the command loop need not wait for it
		}
	}
	warn := now.Sub(r.warned) >= time.Second
	quiet := r.quiet
	if warn {
		r.warned, r.quiet = now, 0
	} else {
		r.quiet++
	}
	r.mu.Unlock()
	if warn {
		r.log.Warn("command refused", "cmd", f.cmd, "id", f.id, "reason", kind, "err", err, "refused_since_last_warning", quiet)
	}
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// refuseWait records a refusal and waits until it is journaled.
func (r *refusals) refuseWait(ctx context.Context, payload []byte, at time.Time, kind, by string, err error) error {
	done := make(chan error, 1)
	r.refuse(payload, at, kind, by, err, done)
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return nil
	}
}

// run journals the refusals until ctx is done, then those left; a journal that cannot be
// written stops it (and the daemon).
func (r *refusals) run(ctx context.Context) error {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		stopping := false
		select {
		case <-ctx.Done():
			stopping = true
		case <-r.wake:
		case <-tick.C:
		}
		if err := r.flush(stopping); err != nil || stopping {
			return err
		}
	}
}

// flush journals what waits: the records one by one, and the overflow once its second is over
// (or the daemon stops), in one append.
func (r *refusals) flush(all bool) error {
	r.mu.Lock()
	pending := r.pending
	r.pending = nil
	var over *overflow
	if r.over != nil && (all || time.Since(r.over.from) >= overflowEvery) {
		over, r.over = r.over, nil
	}
	r.mu.Unlock()
	if len(pending) == 0 && over == nil {
		return nil
	}
	var evs []tablebus.Event
	for _, f := range pending {
		what := "a command that does not decode"
		if f.cmd != "" {
			what = fmt.Sprintf("command %q (id %q)", f.cmd, f.id)
		}
		if f.by != "" {
			what += " from " + f.by
		}
		evs = append(evs, tablebus.Event{Type: tablebus.Fault, Code: "command-refused", Reason: f.kind, TS: f.at.UTC(),
			Problem: fmt.Sprintf("%s refused (%s): %v", what, f.kind, f.err)})
	}
	if over != nil {
		evs = append(evs, tablebus.Event{Type: tablebus.Fault, Code: "command-refused", Reason: "several", Count: over.n, TS: over.last.UTC(),
			Problem: fmt.Sprintf("%d more commands refused, arrived from %s to %s, beyond %d a second recorded one by one: %s; commands %s; from %s",
				over.n, over.first.UTC().Format("15:04:05.000"), over.last.UTC().Format("15:04:05.000"), refusalBudget,
				counted(over.kinds), counted(over.cmds), counted(over.keys))})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := r.ob.Emit(ctx, nil, evs)
	if err != nil {
		err = fmt.Errorf("%w: journaling %d refused commands: %w", shoe.ErrSink, len(pending), err)
	}
	for _, f := range pending {
		if f.done != nil {
			f.done <- err
		}
	}
	if err != nil {
		return err
	}
	// Answer each refusal recorded one by one, after its record (an answer is never ahead of
	// the journal), without waiting for the broker: a slow broker must not hold up the records.
	for _, f := range pending {
		if !all {
			b, _ := json.Marshal(tablebus.Reply{V: tablebus.SchemaVersion, ID: f.id, Cmd: f.cmd, Error: f.err.Error()})
			r.client.PublishAsync(r.topics.Replies(), b, 1, false)
		}
	}
	return nil
}

// counted lists counts by name, largest first: "400 busy, 12 unsigned".
func counted(m map[string]int) string {
	names := slices.Collect(maps.Keys(m))
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b)) })
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%d %s", m[n], cmp.Or(n, "(unknown)")))
	}
	return strings.Join(parts, ", ")
}

// busKeys returns the table's signer, the keyring and the pinned root: from --key and
// --keyring (checked under --root when given), or development keys kept beside the journal
// (`make run`, tests), said so in the log.
func busKeys(o *options, log *slog.Logger) (*tablebus.Signer, *tablebus.Keyring, ed25519.PublicKey, error) {
	var root ed25519.PublicKey
	if o.root != "" {
		var err error
		if root, err = tablebus.ReadPublicKey(o.root); err != nil {
			return nil, nil, nil, err
		}
	}
	if o.key == "" && o.keyring == "" {
		dir := filepath.Join(filepath.Dir(o.journal), "keys")
		s, kr, err := keystore.Dev(dir, o.table)
		if err != nil {
			return nil, nil, nil, err
		}
		log.Warn("no --key and --keyring: signing with development keys (not for a casino floor)", "dir", dir, "kid", s.KeyID(), "keyring", kr.String())
		return s, kr, root, nil
	}
	if o.key == "" || o.keyring == "" {
		return nil, nil, nil, fmt.Errorf("give both --key and --keyring (sabot keys), or neither for development keys")
	}
	s, kr, err := keystore.Load(o.key, o.keyring, root, o.table, time.Now())
	if err != nil {
		return nil, nil, nil, err
	}
	log.Info("signing the feed", "kid", s.KeyID(), "keyring", kr.String())
	return s, kr, root, nil
}

// watchKeys follows a rotation of the key or the keyring files without stopping the table.
func watchKeys(ctx context.Context, o *options, root ed25519.PublicKey, ob *outbox.Outbox, guard *tablebus.CommandGuard, log *slog.Logger) {
	if o.key == "" {
		return
	}
	keystore.Watch(ctx, o.key, o.keyring, root, o.table, 5*time.Second,
		func(s *tablebus.Signer) {
			ob.SetSigner(s)
			log.Info("key rotated: signing with the new key from the next event", "kid", s.KeyID())
		},
		func(kr *tablebus.Keyring) {
			ob.SetKeyring(kr.Raw())
			guard.SetKeyring(kr)
			log.Info("keyring replaced: publishing it", "keyring", kr.String())
		},
		func(err error) { log.Error("a new key or keyring was refused; keeping the old", "err", err) })
}

// embeddedBroker starts the embedded broker with the accounts of --broker-dir (sabot
// broker-config), an account of the daemon's own with a password made now, and
// --broker-anonymous as the role of clients without an account. It sets the daemon's user and
// password.
func embeddedBroker(o *options, log *slog.Logger) (*broker.Broker, error) {
	var accts []broker.Account
	if o.brokerDir != "" {
		var err error
		if accts, err = brokerconf.ReadAccounts(o.brokerDir); err != nil {
			return nil, err
		}
	}
	pw := make([]byte, 18)
	rand.Read(pw)
	o.user, o.pass = o.table, base64.RawURLEncoding.EncodeToString(pw)
	hash, err := access.HashPassword(o.pass)
	if err != nil {
		return nil, err
	}
	accts = append(accts, broker.Account{Account: access.Account{Name: o.table, Role: access.Table}, Hash: hash})
	accts = append(accts, o.devAccounts...)
	if o.term.addr != "" && o.term.user == "" { // the dealer terminal's own connection: a dealer's account
		o.term.user, o.term.pass = terminalAccount(o)
		th, err := access.HashPassword(o.term.pass)
		if err != nil {
			return nil, err
		}
		accts = append(accts, broker.Account{Account: access.Account{Name: o.term.user, Role: access.Dealer}, Hash: th})
	}
	var anon []access.Role
	if o.brokerAnon != "" && o.brokerAnon != "none" {
		for _, name := range strings.Split(o.brokerAnon, ",") {
			r, err := access.ParseRole(strings.TrimSpace(name))
			if err != nil {
				return nil, err
			}
			anon = append(anon, r)
		}
	}
	b, err := broker.Start(broker.Options{Addr: o.listen, Logger: log, Accounts: accts, Anonymous: anon})
	if err != nil {
		return nil, fmt.Errorf("%w (is another sabotd or mosquitto using it? use --listen or --mqtt)", err)
	}
	return b, nil
}

// probeBus checks at start that what the daemon publishes comes back, and says so loudly when
// it does not (MQTT 3.1.1 acknowledges a publish its ACL denies).
func probeBus(ctx context.Context, ob *outbox.Outbox, client *mqttbus.Client, log *slog.Logger) {
	err := ob.Probe(ctx, client, 5*time.Second)
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		log.Error("**** BUS PROBE FAILED: THIS TABLE'S FEED DOES NOT REACH THE BROKER'S SUBSCRIBERS ****", "err", err)
		if ferr := ob.Fault(ctx, "bus-probe", err.Error()); ferr != nil {
			log.Error("journaling the probe's fault", "err", ferr)
		}
		return
	}
	log.Info("bus probe: what this daemon publishes comes back")
}
