package readershoe_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/driver/internal/ptyline"
	"github.com/sabot-tables/sabot/driver/internal/transcript"
	"github.com/sabot-tables/sabot/driver/readershoe"
	"github.com/sabot-tables/sabot/driver/readershoe/readershoetest"
	"github.com/sabot-tables/sabot/shoe/card"
)

var update = flag.Bool("update", false, "record testdata transcripts and golden files again from the simulator")

// describe writes a read for a golden file: everything but its time.
func describe(r readershoe.Read) string {
	return fmt.Sprintf("#%d %v mode=%v card=%v code=%q text=%q raw=%q err=%v", r.Seq, r.Kind, r.Mode, r.Card, r.Code, r.Text, r.Raw, r.Err)
}

// recordSession deals a short, eventful shoe on the simulator: burns, cards, an unread card, an
// alarm, a warning, a damaged line, garbage, the cut card, a lost line ending.
func recordSession(sim *readershoetest.Sim) {
	c := card.MustParse
	sim.Load(readershoetest.Stack([]card.Card{c("Kd"), c("2s"), c("3s"), c("Th"), c("9c"), c("Ah"), c("5d"), c("Qs"), c("7h")}, 7))
	sim.SetBurnMode(true)
	sim.Draw()
	sim.Draw()
	sim.SetBurnMode(false)
	sim.Draw()
	sim.NotRead(1)
	sim.Draw()
	sim.Alarm(false, "E3", "Card Not Read")
	sim.Warning(2)
	sim.Draw()
	sim.WriteRaw([]byte(" [Game]<Card:A\x00H> \r\n"))
	sim.WriteRaw([]byte("\x00\x00\r\n"))
	sim.Draw()
	sim.WriteRaw([]byte(" [Game]<Card:5D>  [GameAlarm]<Alarm:E9 Door> \r\n"))
	sim.Draw()                                // 5d
	sim.Draw()                                // the cut card
	sim.Draw()                                // Qs
	sim.WriteRaw([]byte(" [Game]<Card:JC> ")) // its line ending lost: flushed when the next line comes
	sim.Draw()                                // 7h
	sim.WriteRaw([]byte(" <W0xFF> \r\n"))
}

// TestPlayback replays a recorded byte stream through the driver and compares every read with
// the golden file. Transcripts recorded on hardware (`sabot shoe watch --port P --record FILE`)
// belong here too, with a golden file made by -update after checking them by eye.
func TestPlayback(t *testing.T) {
	trPath := filepath.Join("testdata", "session.transcript")
	goldPath := filepath.Join("testdata", "session.golden")
	var steps []transcript.Step
	if *update {
		sim, err := readershoetest.NewSim(readershoetest.Opts{})
		if err != nil {
			t.Fatal(err)
		}
		defer sim.Close()
		var rec bytes.Buffer
		dev, err := readershoe.Open(sim.Port(), readershoe.Opts{Record: &rec})
		if err != nil {
			t.Fatal(err)
		}
		recordSession(sim)
		collect(t, dev)
		dev.Close()
		if err := os.WriteFile(trPath, rec.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(trPath)
	if err != nil {
		t.Fatal(err)
	}
	steps, err = transcript.Parse(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	line, err := ptyline.New("ttyPlayback", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer line.Close()
	dev, err := readershoe.Open(line.Path(), readershoe.Opts{})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	player := transcript.Play(line, steps, time.Second)
	reads := collect(t, dev)
	if err := player.Wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, r := range reads {
		fmt.Fprintln(&out, describe(r))
	}
	if *update {
		if err := os.WriteFile(goldPath, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldPath)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != string(want) {
		t.Fatalf("reads differ from %s:\n%s\nwant:\n%s", goldPath, out.String(), want)
	}
}
