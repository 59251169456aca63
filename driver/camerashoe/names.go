package camerashoe

import (
	"fmt"
	"sort"
	"strings"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/host/v3"
)

// PinProblem is a problem with one of the shoe's pin names (CheckNames).
type PinProblem struct {
	What    string // exit, lid, confirm, manual, void, led
	Name    string // the name given
	Problem string
}

func (p PinProblem) String() string { return fmt.Sprintf("%s pin %q: %s", p.What, p.Name, p.Problem) }

// CheckNames checks the shoe's pin names without opening a pin (sabotd --check-config): every
// input is named, no line serves two functions, and each name is one this machine's GPIO knows.
// That last check needs periph's host drivers to find the GPIO; on a machine where they find
// none, CheckNames says so once, with What "gpio" (OpenByName would fail there).
func CheckNames(n Names) []PinProblem {
	var out []PinProblem
	pins := []struct{ what, name string }{
		{"exit", n.Exit}, {"lid", n.Lid}, {"confirm", n.Confirm}, {"manual", n.Manual}, {"void", n.Void}, {"led", n.LED},
	}
	gpioErr := ""
	if _, err := host.Init(); err != nil {
		gpioErr = fmt.Sprintf("initialising GPIO: %v", err)
	} else if len(gpioreg.All()) == 0 {
		gpioErr = "this machine has no GPIO that periph can drive: the pins cannot be opened here"
	}
	used := map[string]string{} // a line (its real name where the machine knows it) → its function
	for _, p := range pins {
		switch {
		case p.name == "" && p.what == "led":
			continue // no LED
		case p.name == "":
			out = append(out, PinProblem{What: p.what, Problem: "no pin given: every input is required"})
			continue
		}
		line := p.name
		if gpioErr == "" {
			pin := gpioreg.ByName(p.name)
			if pin == nil {
				out = append(out, PinProblem{What: p.what, Name: p.name, Problem: "no such pin on this machine (it has " + knownPins() + ")"})
				continue
			}
			if r, ok := pin.(gpio.RealPin); ok { // an alias: P1_11 is GPIO17 on a Raspberry Pi
				pin = r.Real()
			}
			line = pin.Name()
		}
		if other, dup := used[line]; dup {
			out = append(out, PinProblem{What: p.what, Name: p.name, Problem: "also the " + other + " pin: one line cannot serve two functions"})
			continue
		}
		used[line] = p.what
	}
	if gpioErr != "" {
		out = append(out, PinProblem{What: "gpio", Problem: gpioErr})
	}
	return out
}

// knownPins lists a few of the machine's pin names, for a problem's message.
func knownPins() string {
	var names []string
	for _, p := range gpioreg.All() {
		names = append(names, p.Name())
	}
	sort.Strings(names)
	if len(names) > 8 {
		names = append(names[:8], "…")
	}
	return strings.Join(names, ", ")
}
