package main

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/games/follow"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/consumer"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/keystore"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

func init() {
	addCommand(command{name: "engine", summary: "run a game engine as a separate process, from the table's verified feed over MQTT", run: runEngine})
}

// followMark is the engine journal's mark of the last daemon event after which no round was
// open: a restarted engine asks for the feed again from the next one, so it follows the round
// it was in from its start.
const followMark = "follow"

func runEngine(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("engine", "--game GAME --table T [--mqtt URL] [--id ID] [--root root.pub]", stderr)
	game := fs.String("game", "", "game id (sabot games list)")
	rules := fs.String("rules", "", "rule preset (default: the game's)")
	table := fs.String("table", "", "table id")
	url := fs.String("mqtt", "tcp://127.0.0.1:1883", "broker URL")
	user := fs.String("mqtt-user", "", "MQTT user name (password from SABOT_MQTT_PASSWORD); in production the same as --id")
	mqttTLS := tlsFlags(fs)
	id := fs.String("id", "engine", "this engine's id: it publishes on sabot/v1/<table>/secure/engine/<id> and acknowledges on …/ack/<id>")
	jpath := fs.String("journal", "", "the engine's own journal (default var/<table>-<id>.db)")
	rootPath := fs.String("root", "", "the floor's root public key (sabot keys root); empty trusts the first keyring's root (development)")
	krPath := fs.String("keyring", "", "a keyring file to start with (it is also received from the table)")
	quiet := fs.Bool("quiet", false, "do not print the engine's events")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *game == "" || *table == "" {
		fs.Usage()
		return errUsage
	}
	if err := tablebus.ValidTable(*table); err != nil {
		return err
	}
	if err := tablebus.ValidConsumer(*id); err != nil {
		return fmt.Errorf("engine id: %w", err)
	}
	eng, err := catalog.New(games.Config{Game: *game, Rules: *rules})
	if err != nil {
		return err
	}
	var root ed25519.PublicKey
	if *rootPath != "" {
		if root, err = tablebus.ReadPublicKey(*rootPath); err != nil {
			return err
		}
	}
	var kr *tablebus.Keyring
	if *krPath != "" {
		if kr, err = keystore.ReadKeyring(*krPath, root); err != nil {
			return err
		}
	}
	if *jpath == "" {
		*jpath = filepath.Join("var", *table+"-"+*id+".db")
	}
	if err := os.MkdirAll(filepath.Dir(*jpath), 0o750); err != nil {
		return err
	}
	// The engine's own stream is journaled like the daemon's: its sequence numbers survive restarts.
	j, err := journal.Open(*jpath, *table)
	if err != nil {
		return err
	}
	defer j.Close()
	session, err := j.NewSession()
	if err != nil {
		return err
	}
	from, err := j.Mark(followMark)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil)).With("engine", *id, "table", *table)
	copts := consumer.Options{ID: *id, Tables: []string{*table}, Feed: tablebus.Secure, Keyring: kr, Root: root,
		Ack: consumer.AckDelivered, Logger: log}
	if from > 0 {
		copts.From = map[string]uint64{*table: from}
	}
	c, err := consumer.New(copts)
	if err != nil {
		return err
	}
	topics := tablebus.Topics{Table: *table}
	tlsConf, err := mqttTLS()
	if err != nil {
		return err
	}
	client, err := mqttbus.Connect(ctx, mqttbus.Options{TLS: tlsConf, URL: *url, ClientID: "sabot-engine-" + *table + "-" + *id,
		Username: *user, Password: os.Getenv("SABOT_MQTT_PASSWORD"), Logger: log})
	if err != nil {
		return err
	}
	defer client.Close()

	e := &engineRun{f: follow.New(eng, catalog.Manage), j: j, client: client, topic: topics.Engine(*id), id: *id, table: *table,
		session: session, quiet: *quiet, stdout: stdout, log: log}
	if err := e.resume(ctx); err != nil {
		return err
	}
	log.Info("engine following the table's verified feed", "game", *game, "topic", topics.SecureEvents(), "from_seq", from)
	return c.Run(ctx, client, e)
}

// publisher publishes one message (mqttbus.Client).
type publisher interface {
	Publish(ctx context.Context, topic string, payload []byte, qos byte, retain bool) error
}

// engineRun is the engine process's consumer handler.
type engineRun struct {
	f       *follow.Follower
	j       *journal.Journal
	client  publisher
	topic   string
	id      string
	table   string
	session uint64
	quiet   bool
	stdout  io.Writer
	log     *slog.Logger

	inRound bool // between the round's opening and its settlement or void
	held    bool // the daemon died in a round: the round is held
	last    tablebus.Event

	// After a restart the engine follows again from its last round boundary: the outputs it
	// journaled before the crash are not emitted twice. lastRef is the daemon's event the last
	// journaled output answered, doneAtLast how many outputs answered it.
	lastRef    uint64
	doneAtLast int
	seenAtLast int
	unsent     uint64 // the first journaled event not yet published (0: none)
}

// resume reads where the engine's journal stands: the last daemon event it answered, and how
// many outputs it journaled for it.
func (e *engineRun) resume(ctx context.Context) error {
	last := e.j.NextSeq() - 1
	if last == 0 {
		return nil
	}
	from := uint64(1)
	if last > 64 {
		from = last - 64 // a round's outputs are a few dozen events at most
	}
	return e.j.Range(ctx, from, last, func(r journal.Record) error {
		var o struct {
			Ref uint64 `json:"ref"`
		}
		if err := json.Unmarshal(r.Secure, &o); err != nil {
			return err
		}
		switch {
		case o.Ref > e.lastRef:
			e.lastRef, e.doneAtLast = o.Ref, 1
		case o.Ref == e.lastRef:
			e.doneAtLast++
		}
		return nil
	})
}

var _ consumer.Handler = (*engineRun)(nil)

// emit journals and publishes one of the engine's own events.
func (e *engineRun) emit(o tablebus.Event) error {
	// An output the journal already holds (the engine crashed after journaling it, and follows
	// the round again) is not emitted twice: a settlement must never be published twice.
	if o.Ref != 0 && o.Ref <= e.lastRef {
		if o.Ref < e.lastRef {
			return nil
		}
		if e.seenAtLast++; e.seenAtLast <= e.doneAtLast {
			return nil
		}
	}
	o.V, o.Seq, o.Table, o.Source, o.Session = tablebus.SchemaVersion, e.j.NextSeq(), e.table, e.id, e.session
	r, err := e.j.Append(o)
	if err != nil {
		return err
	}
	if e.unsent == 0 {
		e.unsent = r.Seq
	}
	e.flush()
	if o.Type == tablebus.Fault {
		e.log.Error("ALARM", "code", o.Code, "problem", o.Problem)
	}
	if !e.quiet {
		if s := tablebus.Describe(o); s != "" {
			fmt.Fprintf(e.stdout, "%s %s/%s #%-6d %s\n", o.TS.Local().Format("15:04:05.000"), e.table, e.id, o.Seq, s)
		}
	}
	return nil
}

// flush publishes the journaled events not yet published, in order, stopping at the first
// failure (they are published again with the next event: nothing journaled is skipped).
func (e *engineRun) flush() {
	if e.unsent == 0 {
		return
	}
	last := e.j.NextSeq() - 1
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := e.j.Range(ctx, e.unsent, last, func(r journal.Record) error {
		if err := e.client.Publish(ctx, e.topic, r.Secure, 1, false); err != nil {
			return err
		}
		e.unsent = r.Seq + 1
		return nil
	})
	if err != nil {
		e.log.Warn("publishing the engine's events (they stay in its journal and go out with the next)", "from_seq", e.unsent, "err", err)
		return
	}
	e.unsent = 0
}

// Event follows one verified event of the daemon's feed.
func (e *engineRun) Event(d consumer.Delivery) error {
	ev := d.Event
	e.last = ev
	if e.held {
		e.held = false
		if err := e.emit(tablebus.Event{Type: tablebus.FaultResolved, Code: "daemon-offline", By: e.id, Shoe: ev.Shoe, Round: ev.Round,
			TS: ev.TS, Reason: "the daemon is back and its feed continues"}); err != nil {
			return err
		}
	}
	for _, o := range e.f.Apply(ev) {
		if err := e.emit(o); err != nil {
			return err
		}
	}
	switch ev.Type {
	case tablebus.RoundOpened:
		e.inRound = true
	case tablebus.RoundSettled, tablebus.RoundVoided, tablebus.ShoeEnded, tablebus.ShoeLoaded:
		e.inRound = false
		if err := e.j.SetMark(followMark, d.Seq); err != nil {
			return err
		}
	}
	return nil
}

// Alarm publishes the consumer's alarm (a forged or altered event, a gap) as the engine's fault.
func (e *engineRun) Alarm(a consumer.Alarm) {
	o := tablebus.Event{Type: tablebus.Fault, Code: "bus-" + a.Code, Problem: a.String(), Hold: a.Code != consumer.AlarmFuture,
		Shoe: e.last.Shoe, Round: e.last.Round, TS: a.TS.UTC(), Ref: a.Seq}
	if err := e.emit(o); err != nil {
		e.log.Error("journaling an alarm", "err", err)
	}
}

// State holds the round when the daemon dies in it: no result is settled from a dead table.
func (e *engineRun) State(s consumer.State) {
	e.log.Info("table status", "state", s.String())
	if !s.Online && e.inRound && !e.held {
		e.held = true
		o := tablebus.Event{Type: tablebus.Fault, Code: "daemon-offline", Hold: true, Shoe: e.last.Shoe, Round: e.last.Round,
			TS: s.Since.UTC(), Problem: fmt.Sprintf("the table's daemon is offline (session %d) in round %d: the round is held", s.Session, e.last.Round)}
		if err := e.emit(o); err != nil {
			e.log.Error("journaling the hold", "err", err)
		}
	}
}
