// Package access is who may read and write what on the table bus: one list of grants per role,
// from which both mosquitto's ACL file (MosquittoACL) and the embedded broker's hook (Allowed)
// are made, so the two brokers decide alike. Everything not granted is denied.
//
// Topics sit at a fixed depth (sabot/v1/<table>/…), so one pattern per role covers every table:
//
//	role          account (MQTT user name, or certificate CN)   may
//	table         the table id (T1)                            write its own secure/… public/… cmd/reply;
//	                                                           read its own cmd, ack/+, replay/+, probes
//	engine        engine.<name>                                read every secure/events and public/…;
//	                                                           write secure/engine/<account>, ack/<account>, replay/<account>
//	surveillance  surveillance.<name>                          read everything; write ack/ and replay/<account>
//	display       display.<name>                               read public/… only; write replay/<account>
//	dealer        dealer.<name>                                write cmd; read cmd/reply and public/…
//	progressive   progressive.<name>                           read every secure/events and public/…;
//	                                                           write progressive/…, every progressive/award,
//	                                                           ack/<account>, replay/<account>
//
// Everyone but the progressive controller reads the pools' meters and statuses
// (sabot/v1/progressive/meter/<pool>, …/status); a table also reads its own progressive/award.
//
// A table's grants are written for each table account (a mosquitto "user" section with its
// topics), not as "pattern" lines: a pattern applies to every account, and would let a display
// publish feed-shaped messages under its own name. No role may write another table's events: a
// display cannot read the secure feed nor publish anything but its replay requests.
package access

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sabot-tables/sabot/tablebus"
)

// Role is an account's role.
type Role string

// The roles.
const (
	Table        Role = "table"
	Engine       Role = "engine"
	Surveillance Role = "surveillance"
	Display      Role = "display"
	Dealer       Role = "dealer"
	Progressive  Role = "progressive" // a floor's progressive controller (sabot progressive serve)
)

// Roles lists every role.
var Roles = []Role{Table, Engine, Surveillance, Display, Dealer, Progressive}

// Access is what a grant allows.
type Access int

// Kinds of access.
const (
	Read Access = 1 << iota
	Write
	ReadWrite = Read | Write
)

func (a Access) mosquitto() string {
	switch a {
	case Read:
		return "read"
	case Write:
		return "write"
	}
	return "readwrite"
}

// Grant is one ACL line: a topic filter, where "%u" stands for the account's name.
type Grant struct {
	Filter string
	Access Access
}

// pattern are a table daemon's grants, with %u its table id.
var pattern = []Grant{
	{tablebus.Root + "/%u/secure/#", Write},
	{tablebus.Root + "/%u/public/#", Write},
	{tablebus.Root + "/%u/cmd/reply", Write},
	{tablebus.Root + "/%u/cmd", Read},
	{tablebus.Root + "/%u/ack/+", Read},
	{tablebus.Root + "/%u/replay/+", Read},
	{tablebus.Root + "/%u/secure/probe", Read},
	{tablebus.Root + "/%u/public/probe", Read},
	{tablebus.Root + "/%u/public/status", Read}, // its own retained status, which the journal's start-up check reads
	{tablebus.Root + "/%u/progressive/award", Read},
	{tablebus.ProgressiveRoot + "/status/+", Read},
	{tablebus.ProgressiveRoot + "/meter/+", Read},
}

// poolsRead are the pools' meters and statuses, which the engines, displays and dealers read.
var poolsRead = []Grant{
	{tablebus.ProgressiveRoot + "/status/+", Read},
	{tablebus.ProgressiveRoot + "/meter/+", Read},
}

// roleGrants are each role's own grants ("user" sections in mosquitto).
var roleGrants = map[Role][]Grant{
	Progressive: {
		{tablebus.Root + "/+/secure/events", Read},
		{tablebus.Root + "/+/public/#", Read},
		{tablebus.ProgressiveRoot + "/#", ReadWrite},
		{tablebus.Root + "/+/progressive/award", ReadWrite},
		{tablebus.Root + "/+/ack/%u", Write},
		{tablebus.Root + "/+/replay/%u", Write},
	},
	Engine: {
		{tablebus.Root + "/+/secure/events", Read},
		{tablebus.Root + "/+/public/#", Read},
		{tablebus.Root + "/+/secure/engine/%u", Write},
		{tablebus.Root + "/+/ack/%u", Write},
		{tablebus.Root + "/+/replay/%u", Write},
	},
	Surveillance: {
		{tablebus.Root + "/#", Read},
		{tablebus.Root + "/+/ack/%u", Write},
		{tablebus.Root + "/+/replay/%u", Write},
	},
	Display: {
		{tablebus.Root + "/+/public/#", Read},
		{tablebus.Root + "/+/replay/%u", Write},
	},
	Dealer: {
		{tablebus.Root + "/+/cmd", Write},
		{tablebus.Root + "/+/cmd/reply", Read},
		{tablebus.Root + "/+/public/#", Read},
	},
}

// Account is a broker account.
type Account struct {
	Name string
	Role Role
}

// Check reports whether the account's name fits its role: a table's is a table id, a role
// account's is role.name.
func (a Account) Check() error {
	switch a.Role {
	case Table:
		if err := tablebus.ValidTable(a.Name); err != nil {
			return fmt.Errorf("access: %w", err)
		}
		return nil
	case Engine, Surveillance, Display, Dealer, Progressive:
		if err := tablebus.ValidConsumer(a.Name); err != nil {
			return fmt.Errorf("access: %w", err)
		}
		if !strings.HasPrefix(a.Name, string(a.Role)+".") || len(a.Name) == len(a.Role)+1 {
			return fmt.Errorf("access: a %s account is named %s.<name>, not %q", a.Role, a.Role, a.Name)
		}
		return nil
	}
	return fmt.Errorf("access: unknown role %q (want one of %v)", a.Role, Roles)
}

// ParseRole reads a role name.
func ParseRole(s string) (Role, error) {
	if slices.Contains(Roles, Role(s)) {
		return Role(s), nil
	}
	return "", fmt.Errorf("access: unknown role %q (want one of %v)", s, Roles)
}

// Grants returns an account's grants with its name substituted, the patterns first.
func (a Account) Grants() []Grant {
	var out []Grant
	sub := func(gs []Grant) {
		for _, g := range gs {
			if a.Name == "" && strings.Contains(g.Filter, "%u") {
				continue // an anonymous client has no topic of its own
			}
			out = append(out, Grant{Filter: strings.ReplaceAll(g.Filter, "%u", a.Name), Access: g.Access})
		}
	}
	if a.Role == Table && a.Name != "" {
		sub(pattern)
	}
	sub(roleGrants[a.Role])
	if a.Role == Engine || a.Role == Display || a.Role == Dealer {
		sub(poolsRead)
	}
	return out
}

// Allowed reports whether the account may publish to topic (write), or receive topic or
// subscribe to the filter topic (read). Whatever no grant allows is denied.
func (a Account) Allowed(topic string, write bool) bool {
	if topic == "" || len(topic) > 1024 || strings.ContainsRune(topic, 0) {
		return false
	}
	if write && strings.ContainsAny(topic, "+#") {
		return false
	}
	if a.Name != "" && strings.ContainsAny(a.Name, "+#/") {
		return false // a name that would widen the patterns
	}
	for _, g := range a.Grants() {
		switch {
		case write && g.Access&Write != 0 && subsumes(g.Filter, topic):
			return true
		case !write && g.Access&Read != 0 && overlaps(g.Filter, topic):
			// Like mosquitto: a subscription is accepted if it can match something readable,
			// and each message is checked again on delivery (a topic overlaps only what
			// matches it).
			return true
		}
	}
	return false
}

// overlaps reports whether some topic matches both filters.
func overlaps(g, f string) bool {
	gl, fl := strings.Split(g, "/"), strings.Split(f, "/")
	for i := 0; ; i++ {
		switch {
		case i == len(gl) && i == len(fl):
			return true
		case i < len(gl) && gl[i] == "#", i < len(fl) && fl[i] == "#":
			return true
		case i == len(gl) || i == len(fl):
			return false
		case gl[i] != "+" && fl[i] != "+" && gl[i] != fl[i]:
			return false
		}
	}
}

// subsumes reports whether every topic filter f matches is matched by grant g (MQTT 3.1.1
// §4.7 wildcards).
func subsumes(g, f string) bool {
	gl, fl := strings.Split(g, "/"), strings.Split(f, "/")
	for i, x := range gl {
		if x == "#" {
			return i < len(fl) || i == len(fl) // "a/#" also matches "a"
		}
		if i >= len(fl) {
			return false
		}
		y := fl[i]
		if y == "#" {
			return false
		}
		if x == "+" {
			continue
		}
		if y == "+" || x != y {
			return false
		}
	}
	return len(gl) == len(fl)
}

// MosquittoACL returns an acl_file for mosquitto giving each account its role's grants, in a
// user section per account (a table daemon's account is its table id). mosquitto denies
// whatever it does not grant.
func MosquittoACL(accounts []Account) (string, error) {
	var b strings.Builder
	b.WriteString("# Sabot table bus ACL (sabot broker-config). mosquitto denies whatever is not granted.\n")
	sorted := slices.Clone(accounts)
	slices.SortFunc(sorted, func(x, y Account) int { return strings.Compare(x.Name, y.Name) })
	for _, a := range sorted {
		if err := a.Check(); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\n# %s\nuser %s\n", a.Role, a.Name)
		for _, g := range a.Grants() {
			fmt.Fprintf(&b, "topic %s %s\n", g.Access.mosquitto(), g.Filter)
		}
	}
	return b.String(), nil
}
