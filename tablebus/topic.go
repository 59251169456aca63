package tablebus

import (
	"fmt"
	"strings"
)

// Root is the first two levels of every Sabot topic.
const Root = "sabot/v1"

// ValidTable reports whether id can be a table id: 1–32 characters of A–Z, a–z, 0–9, '-' or
// '_' (no MQTT wildcard or level separator can appear in a topic level).
func ValidTable(id string) error {
	if len(id) == 0 || len(id) > 32 {
		return fmt.Errorf("tablebus: table id %q must be 1 to 32 characters", id)
	}
	if id == "progressive" {
		return fmt.Errorf("tablebus: table id %q is the progressive controller's tree (%s)", id, ProgressiveRoot)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return fmt.Errorf("tablebus: table id %q: only letters, digits, '-' and '_' are allowed", id)
		}
	}
	return nil
}

// Topics are one table's topics.
type Topics struct{ Table string }

// SecureEvents is every event of the table, hidden cards included.
func (t Topics) SecureEvents() string { return Root + "/" + t.Table + "/secure/events" }

// PublicEvents is the public feed: face-down cards without their identity.
func (t Topics) PublicEvents() string { return Root + "/" + t.Table + "/public/events" }

// Status is the retained online/offline status, set offline by the daemon's last will.
func (t Topics) Status() string { return Root + "/" + t.Table + "/public/status" }

// Devices is the retained device status.
func (t Topics) Devices() string { return Root + "/" + t.Table + "/public/devices" }

// Engine is where an external engine with the given id publishes its own events.
func (t Topics) Engine(id string) string { return Root + "/" + t.Table + "/secure/engine/" + id }

// Commands is where the dealer terminal sends commands to the daemon.
func (t Topics) Commands() string { return Root + "/" + t.Table + "/cmd" }

// Replies is where the daemon answers each command: {"id", "ok", "error"}.
func (t Topics) Replies() string { return Root + "/" + t.Table + "/cmd/reply" }

// Keyring is the retained keyring signed by the floor's root key, as the daemon was given it.
func (t Topics) Keyring() string { return Root + "/" + t.Table + "/public/keyring" }

// Ack is where consumer id keeps its retained acknowledgement: the highest sequence number it
// has processed, contiguously. The daemon re-publishes from the lowest required one.
func (t Topics) Ack(id string) string { return Root + "/" + t.Table + "/ack/" + id }

// Acks is the filter of every consumer's acknowledgement.
func (t Topics) Acks() string { return Root + "/" + t.Table + "/ack/+" }

// Replay is where consumer id asks the daemon to publish a range of events again.
func (t Topics) Replay(id string) string { return Root + "/" + t.Table + "/replay/" + id }

// Replays is the filter of every consumer's replay requests.
func (t Topics) Replays() string { return Root + "/" + t.Table + "/replay/+" }

// Probe is where the daemon checks at start, on each feed's subtree, that what it publishes
// comes back (MQTT 3.1.1 brokers acknowledge a publish they deny: research/mqtt.md §3.1).
func (t Topics) Probe(feed string) string { return Root + "/" + t.Table + "/" + feed + "/probe" }

// ValidConsumer reports whether id can be a consumer id (its MQTT user name, in the ACLs): 1–64
// characters of A–Z, a–z, 0–9, '.', '-' or '_'. Role accounts are named role.name
// (engine.E1, surveillance.S1, display.lobby), a '.' that no table id has.
func ValidConsumer(id string) error {
	if len(id) == 0 || len(id) > 64 {
		return fmt.Errorf("tablebus: consumer id %q must be 1 to 64 characters", id)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("tablebus: consumer id %q: only letters, digits, '.', '-' and '_' are allowed", id)
		}
	}
	return nil
}

// Feed names one of a table's two event feeds.
type Feed string

// The two feeds.
const (
	Secure Feed = "secure" // every event, hidden cards included
	Public Feed = "public" // face-down cards without their identity
)

// Events returns the topic of feed.
func (t Topics) Events(f Feed) string { return Root + "/" + t.Table + "/" + string(f) + "/events" }

// Parsed is a Sabot topic read back.
type Parsed struct {
	Table string
	Rest  string // the levels after the table: "secure/events", "ack/engine.E1", …
}

// ParseTopic reads a Sabot topic: the root, a valid table id, and at least one more level.
func ParseTopic(topic string) (Parsed, error) {
	rest, ok := strings.CutPrefix(topic, Root+"/")
	if !ok {
		return Parsed{}, fmt.Errorf("tablebus: topic %q is outside %s/", topic, Root)
	}
	table, tail, ok := strings.Cut(rest, "/")
	if !ok || tail == "" {
		return Parsed{}, fmt.Errorf("tablebus: topic %q has no level after the table", topic)
	}
	if err := ValidTable(table); err != nil {
		return Parsed{}, err
	}
	return Parsed{Table: table, Rest: tail}, nil
}

// TableOf returns the table id of a Sabot topic, or "".
func TableOf(topic string) string {
	rest, ok := strings.CutPrefix(topic, Root+"/")
	if !ok {
		return ""
	}
	table, _, _ := strings.Cut(rest, "/")
	return table
}
