package camerashoe_test

import (
	"slices"
	"testing"

	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/conn/v3/gpio/gpiotest"
	"periph.io/x/host/v3"

	"github.com/sabot-tables/sabot/driver/camerashoe"
)

var wiring = camerashoe.Names{Exit: "GPIO17", Lid: "GPIO27", Confirm: "GPIO22", Manual: "GPIO23", Void: "GPIO24", LED: "GPIO25"}

func problems(ps []camerashoe.PinProblem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

// TestCheckNames checks the pin names as sabotd --check-config does: on this machine first (no
// GPIO: one problem says so), then with pins registered as a board's driver would.
func TestCheckNames(t *testing.T) {
	if _, err := host.Init(); err != nil {
		t.Fatal(err)
	}
	if len(gpioreg.All()) == 0 {
		got := problems(camerashoe.CheckNames(wiring))
		want := []string{`gpio pin "": this machine has no GPIO that periph can drive: the pins cannot be opened here`}
		bad := wiring
		bad.Manual = bad.Confirm
		want2 := []string{`manual pin "GPIO22": also the confirm pin: one line cannot serve two functions`, want[0]}
		if got := problems(camerashoe.CheckNames(bad)); !slices.Equal(got, want2) {
			t.Errorf("without GPIO, one line twice: %q\nwant %q", got, want2)
		}
		if !slices.Equal(got, want) {
			t.Errorf("without GPIO: %q\nwant %q", got, want)
		}
	}
	for i, name := range []string{"GPIO17", "GPIO22", "GPIO23", "GPIO24", "GPIO25", "GPIO27"} {
		p := &gpiotest.Pin{N: name, Num: 100 + i}
		if gpioreg.ByName(name) != nil {
			continue // a board that has them
		}
		if err := gpioreg.Register(p); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { gpioreg.Unregister(name) })
	}
	if gpioreg.ByName("P1_18") == nil { // a header position naming a line: here the exit gate's
		if err := gpioreg.RegisterAlias("P1_18", "GPIO17"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { gpioreg.Unregister("P1_18") })
	}
	tests := []struct {
		name  string
		names camerashoe.Names
		want  []string
	}{
		{"the default wiring", wiring, nil},
		{"no LED", camerashoe.Names{Exit: "GPIO17", Lid: "GPIO27", Confirm: "GPIO22", Manual: "GPIO23", Void: "GPIO24"}, nil},
		{"a pin unknown here", camerashoe.Names{Exit: "GPIO99", Lid: "GPIO27", Confirm: "GPIO22", Manual: "GPIO23", Void: "GPIO24", LED: "GPIO25"},
			[]string{`exit pin "GPIO99": no such pin on this machine (it has GPIO17, GPIO22, GPIO23, GPIO24, GPIO25, GPIO27)`}},
		{"one line twice", camerashoe.Names{Exit: "GPIO17", Lid: "GPIO27", Confirm: "GPIO22", Manual: "GPIO22", Void: "GPIO24", LED: "GPIO25"},
			[]string{`manual pin "GPIO22": also the confirm pin: one line cannot serve two functions`}},
		{"one line by its alias", camerashoe.Names{Exit: "GPIO17", Lid: "GPIO27", Confirm: "GPIO22", Manual: "GPIO23", Void: "P1_18", LED: "GPIO25"},
			[]string{`void pin "P1_18": also the exit pin: one line cannot serve two functions`}},
		{"no exit gate", camerashoe.Names{Lid: "GPIO27", Confirm: "GPIO22", Manual: "GPIO23", Void: "GPIO24"},
			[]string{`exit pin "": no pin given: every input is required`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := problems(camerashoe.CheckNames(tc.names)); !slices.Equal(got, tc.want) {
				t.Errorf("%q\nwant %q", got, tc.want)
			}
		})
	}
}
