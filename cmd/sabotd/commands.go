package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// commandInput turns a dealer-terminal command into what the shoe loop takes.
func commandInput(c tablebus.Command, now time.Time) (any, error) {
	switch c.Cmd {
	case "new-shoe":
		return shoe.StartShoe{}, nil
	case "count":
		return shoe.CountLeft{}, nil
	case "cut":
		return shoe.CutDone{At: c.At, Dealer: c.Dealer, Time: now}, nil
	case "cutcard":
		return shoe.CutCardPlaced{Behind: c.Behind, Dealer: c.Dealer, Time: now}, nil
	case "bets":
		return shoe.OpenRound{Bets: c.Bets, Time: now}, nil
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
// and answers each on the reply topic. A bad command is refused with a logged reason; the
// daemon carries on.
func serveCommands(ctx context.Context, client *mqttbus.Client, topics tablebus.Topics, loop *shoe.Loop, log *slog.Logger) error {
	cmds := make(chan mqttbus.Message, 64)
	if err := client.Subscribe(ctx, topics.Commands(), 1, func(m mqttbus.Message) {
		select {
		case cmds <- m:
		case <-ctx.Done():
		}
	}); err != nil {
		return err
	}
	for {
		var m mqttbus.Message
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
		c, err := tablebus.DecodeCommand(m.Payload)
		if err == nil {
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
