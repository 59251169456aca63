package readershoe_test

import (
	"fmt"

	"github.com/sabot-tables/sabot/driver/readershoe"
)

// Lines as a Bee-Tek shoe sends them (without CR LF), and one damaged by noise.
func ExampleParseLine() {
	for _, line := range []string{
		" [Game]<Card:4S> ",
		" [Manual Burn Cards]<Card:10H> ",
		" [Game]<Game> ",
		" [Game]<Cut Card> ",
		" [Game]<Alarm:E3 Card Not Read> ",
		" <W0x01> ",
		" [Game]<Card:4\x00> ",
	} {
		for _, r := range readershoe.ParseLine([]byte(line)) {
			fmt.Printf("%-10v draw=%-5v %v\n", r.Kind, r.Draw(), r)
		}
	}
	// Output:
	// card       draw=true  card 4s (Game)
	// card       draw=true  card Th (Manual Burn Cards)
	// unreadable draw=true  unreadable (Game)
	// cut card   draw=true  cut card (Game)
	// alarm      draw=false alarm E3 Card Not Read
	// warning    draw=false warning 0x01
	// malformed  draw=true  malformed " [Game]<Card:4\x00> ": readershoe: malformed line: byte 0x00 at 14
}
