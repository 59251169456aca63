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

// TableOf returns the table id of a Sabot topic, or "".
func TableOf(topic string) string {
	rest, ok := strings.CutPrefix(topic, Root+"/")
	if !ok {
		return ""
	}
	table, _, _ := strings.Cut(rest, "/")
	return table
}
