package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/games/follow"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

func init() {
	addCommand(command{name: "engine", summary: "run a game engine as a separate process, from the table's feed over MQTT", run: runEngine})
}

func runEngine(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("engine", "--game GAME --table T [--mqtt URL] [--id ID]", stderr)
	game := fs.String("game", "", "game id (sabot games list)")
	rules := fs.String("rules", "", "rule preset (default: the game's)")
	table := fs.String("table", "", "table id")
	url := fs.String("mqtt", "tcp://127.0.0.1:1883", "broker URL")
	user := fs.String("mqtt-user", "", "MQTT user name (password from SABOT_MQTT_PASSWORD)")
	id := fs.String("id", "engine", "this engine's id: it publishes on sabot/v1/<table>/secure/engine/<id>")
	jpath := fs.String("journal", "", "the engine's own journal (default var/<table>-<id>.db)")
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
	if err := tablebus.ValidTable(*id); err != nil {
		return fmt.Errorf("engine id: %w", err)
	}
	eng, err := catalog.New(games.Config{Game: *game, Rules: *rules})
	if err != nil {
		return err
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
	log := slog.New(slog.NewTextHandler(stderr, nil)).With("engine", *id, "table", *table)
	topics := tablebus.Topics{Table: *table}
	client, err := mqttbus.Connect(ctx, mqttbus.Options{URL: *url, ClientID: "sabot-engine-" + *table + "-" + *id,
		Username: *user, Password: os.Getenv("SABOT_MQTT_PASSWORD"), Logger: log})
	if err != nil {
		return err
	}
	defer client.Close()
	f := follow.New(eng)
	msgs := make(chan mqttbus.Message, 1024)
	if err := client.Subscribe(ctx, topics.SecureEvents(), 1, func(m mqttbus.Message) {
		select {
		case msgs <- m:
		case <-ctx.Done():
		}
	}); err != nil {
		return err
	}
	log.Info("engine following the table's feed", "game", *game, "topic", topics.SecureEvents())
	for {
		var m mqttbus.Message
		select {
		case <-ctx.Done():
			return nil
		case m = <-msgs:
		}
		e, err := tablebus.Decode(m.Payload)
		if err != nil {
			log.Warn("rejected a message on the feed", "err", err)
			continue
		}
		for _, o := range f.Apply(e) {
			o.V, o.Seq, o.Table, o.Source, o.Session = tablebus.SchemaVersion, j.NextSeq(), *table, *id, session
			r, err := j.Append(o)
			if err != nil {
				return err
			}
			if err := client.Publish(ctx, topics.Engine(*id), r.Secure, 1, false); err != nil {
				return err
			}
			if o.Type == tablebus.Fault {
				log.Error("ALARM", "code", o.Code, "problem", o.Problem)
			}
			if !*quiet {
				if s := tablebus.Describe(o); s != "" {
					fmt.Fprintf(stdout, "%s %s/%s #%-6d %s\n", o.TS.Local().Format("15:04:05.000"), *table, *id, o.Seq, s)
				}
			}
		}
	}
}
