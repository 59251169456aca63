package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

func init() {
	addCommand(command{name: "watch", summary: "follow tables' feeds in the terminal (--json to tail the payloads)", run: runWatch})
}

func runWatch(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("watch", "[--table T] [--secure] [--json] [--mqtt URL]", stderr)
	table := fs.String("table", "+", "table id, or + for every table")
	url := fs.String("mqtt", "tcp://127.0.0.1:1883", "broker URL")
	user := fs.String("mqtt-user", "", "MQTT user name (password from SABOT_MQTT_PASSWORD)")
	secure := fs.Bool("secure", false, "follow the secure feed (hidden cards included; needs a surveillance account)")
	asJSON := fs.Bool("json", false, "print each payload as received, one per line")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *table != "+" {
		if err := tablebus.ValidTable(*table); err != nil {
			return err
		}
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	client, err := mqttbus.Connect(ctx, mqttbus.Options{URL: *url, ClientID: fmt.Sprintf("sabot-watch-%d", os.Getpid()),
		Username: *user, Password: os.Getenv("SABOT_MQTT_PASSWORD"), Logger: log})
	if err != nil {
		return err
	}
	defer client.Close()
	feed := "public"
	if *secure {
		feed = "secure"
	}
	msgs := make(chan mqttbus.Message, 4096)
	handler := func(m mqttbus.Message) {
		select {
		case msgs <- m:
		case <-ctx.Done():
		}
	}
	if err := client.Subscribe(ctx, tablebus.Root+"/"+*table+"/"+feed+"/events", 1, handler); err != nil {
		return err
	}
	if err := client.Subscribe(ctx, tablebus.Root+"/"+*table+"/public/status", 1, handler); err != nil {
		return err
	}
	for {
		var m mqttbus.Message
		select {
		case <-ctx.Done():
			return nil
		case m = <-msgs:
		}
		if *asJSON {
			fmt.Fprintf(stdout, "%s %s\n", m.Topic, m.Payload)
			continue
		}
		if strings.HasSuffix(m.Topic, "/status") {
			var s tablebus.Status
			if err := json.Unmarshal(m.Payload, &s); err != nil {
				fmt.Fprintf(stdout, "%s: bad status: %v\n", m.Topic, err)
				continue
			}
			state := "OFFLINE"
			if s.Online {
				state = "online"
			}
			fmt.Fprintf(stdout, "%s %s daemon %s (session %d, last event #%d)\n", s.TS.Local().Format("15:04:05.000"), s.Table, state, s.Session, s.Seq)
			continue
		}
		e, err := tablebus.Decode(m.Payload)
		if err != nil {
			fmt.Fprintf(stdout, "%s: REJECTED: %v\n", m.Topic, err)
			continue
		}
		if s := tablebus.Describe(e); s != "" {
			fmt.Fprintf(stdout, "%s %s #%-6d %s\n", e.TS.Local().Format("15:04:05.000"), e.Table, e.Seq, s)
		}
	}
}
