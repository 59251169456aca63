package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
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
		return shoe.StartShoe{}, nil
	case "count":
		return shoe.CountLeft{}, nil
	case "cutcard-out":
		// The dealer saw the stop card come out of a shoe whose reader does not report it.
		return shoe.Read{Kind: shoe.ReadCut, Time: now}, nil
	case "cut":
		return shoe.CutDone{At: c.At, Dealer: c.Dealer, Time: now}, nil
	case "cutcard":
		return shoe.CutCardPlaced{Behind: c.Behind, Dealer: c.Dealer, Time: now}, nil
	case "bets":
		return shoe.OpenRound{Bets: tablebus.GameBets(c.Bets), Time: now}, nil
	case "decision":
		return shoe.PlayerDecision{Seat: c.Seat, Choice: c.Choice, Time: now}, nil
	case "manual":
		if c.Card == nil {
			return nil, fmt.Errorf("manual: no card given")
		}
		return shoe.ManualCard{Card: *c.Card, Dealer: c.Dealer, Time: now}, nil
	case "void":
		return shoe.VoidRound{Reason: c.Reason, Dealer: c.Dealer, Time: now}, nil
	case "table":
		return shoe.TableAction{Action: games.Action{Action: c.Action, Seat: c.Seat, Amount: c.Amount}, Dealer: c.Dealer, Time: now}, nil
	}
	return nil, fmt.Errorf("unknown command %q", c.Cmd)
}

// serveCommands applies the commands published on the table's command topic, one at a time,
// and answers each on the reply topic. Each must be signed by a key the keyring gives a role
// allowed to give it (tablebus.CommandGuard). A bad command is refused with a logged reason and
// a fault event (at most one a second); the daemon carries on.
func serveCommands(ctx context.Context, client *mqttbus.Client, topics tablebus.Topics, loop *shoe.Loop, guard *tablebus.CommandGuard, ob *outbox.Outbox, log *slog.Logger) error {
	var lastFault time.Time
	refused := 0
	type arrived struct {
		mqttbus.Message
		at time.Time // freshness is judged when a command arrives, not when its turn comes
	}
	cmds := make(chan arrived, 64)
	if err := client.Subscribe(ctx, topics.Commands(), 1, func(m mqttbus.Message) {
		select {
		case cmds <- arrived{m, time.Now()}:
		default:
			// The table is busy (a shuffle takes minutes) and 64 commands wait: say so now
			// rather than let the broker's queue drop this one unanswered.
			reply := tablebus.Reply{V: tablebus.SchemaVersion, Error: "busy: too many commands waiting; send it again"}
			if d, err := tablebus.DecodeCommand(m.Payload); err == nil {
				reply.ID, reply.Cmd = d.ID, d.Cmd
			}
			log.Warn("command refused: busy", "cmd", reply.Cmd, "id", reply.ID)
			b, _ := json.Marshal(reply)
			pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			client.Publish(pctx, topics.Replies(), b, 1, false)
			cancel()
		}
	}); err != nil {
		return err
	}
	for {
		var m arrived
		select {
		case <-ctx.Done():
			return nil
		case m = <-cmds:
		}
		if m.Retained {
			log.Warn("ignoring a retained command (commands must not be retained)", "topic", m.Topic)
			continue
		}
		reply := tablebus.Reply{V: tablebus.SchemaVersion}
		c, key, err := guard.Check(m.Topic, m.Payload, m.at)
		if err != nil {
			if d, derr := tablebus.DecodeCommand(m.Payload); derr == nil {
				reply.ID, reply.Cmd = d.ID, d.Cmd
			}
			refused++
			if time.Since(lastFault) >= time.Second {
				if ferr := ob.Fault(ctx, "command-refused", fmt.Sprintf("%d command(s) refused; the last: %v", refused, err)); ferr != nil {
					return ferr
				}
				lastFault, refused = time.Now(), 0
			}
		} else {
			log.Info("signed command", "cmd", c.Cmd, "id", c.ID, "by", key.Name, "role", key.Role, "kid", key.Kid)
			reply.ID, reply.Cmd = c.ID, c.Cmd
			var in any
			in, err = commandInput(c, time.Now())
			if err == nil {
				err = loop.Do(ctx, in)
			}
		}
		if err != nil {
			reply.Error = err.Error()
			log.Warn("command refused", "cmd", reply.Cmd, "id", reply.ID, "err", err)
		} else {
			reply.OK = true
			log.Info("command applied", "cmd", reply.Cmd, "id", reply.ID)
		}
		b, _ := json.Marshal(reply)
		if err := client.Publish(ctx, topics.Replies(), b, 1, false); err != nil && ctx.Err() == nil {
			log.Warn("publishing a command reply", "err", err)
		}
	}
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
