package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

func init() {
	addCommand(command{name: "command", summary: "sign a command with a dealer's or supervisor's key, send it to a table, print the reply", run: runCommand})
}

func runCommand(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("command", "--table T --key dealer.key [--mqtt URL] CMD [name=value …] | '{\"cmd\":…}'", stderr)
	table := fs.String("table", "", "table id")
	keyPath := fs.String("key", "", "the signing key (the keyring gives it a role: dealer or supervisor); var/keys/dealer.dev.key with make run")
	url := fs.String("mqtt", "tcp://127.0.0.1:1883", "broker URL")
	user := fs.String("mqtt-user", "", "MQTT user name (a dealer account; password from SABOT_MQTT_PASSWORD)")
	mqttTLS := tlsFlags(fs)
	wait := fs.Duration("wait", 5*time.Second, "how long to wait for the daemon's reply")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *table == "" || *keyPath == "" || fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	if err := tablebus.ValidTable(*table); err != nil {
		return err
	}
	c, err := parseCommandArgs(fs.Args())
	if err != nil {
		return err
	}
	priv, err := tablebus.ReadPrivateKey(*keyPath)
	if err != nil {
		return err
	}
	id := make([]byte, 6)
	rand.Read(id)
	c.V, c.ID = tablebus.SchemaVersion, hex.EncodeToString(id)
	topics := tablebus.Topics{Table: *table}
	payload, err := tablebus.SealCommand(tablebus.NewSigner(priv), topics.Commands(), c, time.Now())
	if err != nil {
		return err
	}
	tlsConf, err := mqttTLS()
	if err != nil {
		return err
	}
	client, err := mqttbus.Connect(ctx, mqttbus.Options{TLS: tlsConf, URL: *url, ClientID: "sabot-command-" + c.ID, Username: *user,
		Password: os.Getenv("SABOT_MQTT_PASSWORD"), FailFast: true})
	if err != nil {
		return err
	}
	defer client.Close()
	replies := make(chan tablebus.Reply, 4)
	if err := client.Subscribe(ctx, topics.Replies(), 1, func(m mqttbus.Message) {
		var r tablebus.Reply
		if json.Unmarshal(m.Payload, &r) == nil && r.ID == c.ID {
			replies <- r
		}
	}); err != nil {
		return err
	}
	if err := client.Publish(ctx, topics.Commands(), payload, 1, false); err != nil {
		return err
	}
	select {
	case r := <-replies:
		if !r.OK {
			return fmt.Errorf("command %s refused by table %s: %s", c.Cmd, *table, r.Error)
		}
		fmt.Fprintf(stdout, "%s %s: applied\n", *table, c.Cmd)
		return nil
	case <-time.After(*wait):
		return fmt.Errorf("command %s: no reply from table %s within %v (is its daemon running? may this account publish commands?)", c.Cmd, *table, *wait)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// numericField names the command fields that hold numbers (tablebus.Command).
var numericField = map[string]bool{"v": true, "at": true, "behind": true, "seat": true, "amount": true}

// parseCommandArgs reads a command as JSON, or as its name and name=value pairs.
func parseCommandArgs(args []string) (tablebus.Command, error) {
	var c tablebus.Command
	if strings.HasPrefix(strings.TrimSpace(args[0]), "{") {
		d := json.NewDecoder(strings.NewReader(strings.Join(args, " ")))
		d.DisallowUnknownFields()
		if err := d.Decode(&c); err != nil {
			return c, fmt.Errorf("command: %w", err)
		}
		return c, nil
	}
	m := map[string]any{"cmd": args[0]}
	for _, a := range args[1:] {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return c, fmt.Errorf("command: %q: want name=value", a)
		}
		// Numbers only where the command has a number: "reason=42" stays words.
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && numericField[k] {
			m[k] = n
		} else {
			m[k] = v
		}
	}
	b, _ := json.Marshal(m)
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.DisallowUnknownFields()
	if err := d.Decode(&c); err != nil {
		return c, fmt.Errorf("command: %w", err)
	}
	if _, ok := tablebus.Commands[c.Cmd]; !ok {
		return c, fmt.Errorf("command: unknown command %q", c.Cmd)
	}
	return c, nil
}
