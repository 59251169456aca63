package shuffler_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/driver/internal/ptyline"
	"github.com/sabot-tables/sabot/driver/internal/transcript"
	"github.com/sabot-tables/sabot/driver/shuffler"
	"github.com/sabot-tables/sabot/driver/shuffler/shufflertest"
	"github.com/sabot-tables/sabot/shoe/card"
)

var update = flag.Bool("update", false, "record testdata transcripts and golden files again from the simulator")

// scenarios are recorded sessions: the commands a test runs, the device's load when recorded.
// A transcript recorded on hardware (`sabot shuffler … --record FILE`) joins them with its own
// scenario and golden file.
var scenarios = []struct {
	name string
	load []card.Card
	run  func(ctx context.Context, dev *shuffler.Dev, w *strings.Builder) error
}{
	{"session", decks(8), func(ctx context.Context, dev *shuffler.Dev, w *strings.Builder) error {
		st, err := dev.Status(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "status: %+v\n", st)
		res, err := dev.SelfTest(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "self-test: %+v\n", res)
		got, err := dev.LoadVerify(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "load: %d cards, %s\n", got.Total(), card.DescribeDiff(card.Diff(card.Decks(8), got)))
		rep, err := dev.Shuffle(ctx, shuffler.Program{Decks: 8})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "shuffle: %v\n", rep)
		return nil
	}},
	{"hands-with-order", decks(1), func(ctx context.Context, dev *shuffler.Dev, w *strings.Builder) error {
		rep, err := dev.Shuffle(ctx, shuffler.Program{Decks: 1, Mode: shuffler.HandForming, Hands: 7, CardsPerHand: 7, ReportOrder: true})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "shuffle: %v: %v\n", rep, rep.Order)
		_, err = dev.Shuffle(ctx, shuffler.Program{Decks: 1, Mode: shuffler.HandForming, Hands: 7, CardsPerHand: 7})
		fmt.Fprintf(w, "again with 3 cards left: %v\n", err)
		return nil
	}},
}

func drainEvents(dev *shuffler.Dev, w *strings.Builder) {
	for {
		select {
		case e := <-dev.Events():
			fmt.Fprintf(w, "event: %v\n", e)
		default:
			return
		}
	}
}

// TestPlayback replays each recorded transcript strictly: the driver must send exactly the
// recorded bytes, and gets the recorded answers; the results must match the golden file.
func TestPlayback(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			trPath := filepath.Join("testdata", sc.name+".transcript")
			goldPath := filepath.Join("testdata", sc.name+".golden")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var out strings.Builder
			if *update {
				sim, err := shufflertest.NewSim(shufflertest.Opts{Seed: 42})
				if err != nil {
					t.Fatal(err)
				}
				defer sim.Close()
				sim.Insert(sc.load)
				var rec bytes.Buffer
				dev, err := shuffler.Open(sim.Port(), shuffler.Opts{Record: &rec})
				if err != nil {
					t.Fatal(err)
				}
				if err := sc.run(ctx, dev, &out); err != nil {
					t.Fatal(err)
				}
				drainEvents(dev, &out)
				dev.Close()
				if err := os.WriteFile(trPath, rec.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(goldPath, []byte(out.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			f, err := os.Open(trPath)
			if err != nil {
				t.Fatal(err)
			}
			steps, err := transcript.Parse(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			line, err := ptyline.New("ttyPlayback", 0)
			if err != nil {
				t.Fatal(err)
			}
			defer line.Close()
			line.SetReadTimeout(20 * time.Millisecond)
			player := transcript.Play(line, steps, 5*time.Second)
			// No retransmission may happen during playback: it is not in the transcript.
			dev, err := shuffler.Open(line.Path(), shuffler.Opts{AckTimeout: 5 * time.Second, Poll: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			if err := sc.run(ctx, dev, &out); err != nil {
				t.Fatal(err)
			}
			drainEvents(dev, &out)
			if err := player.Wait(5 * time.Second); err != nil {
				t.Fatal(err)
			}
			dev.Close()
			want, err := os.ReadFile(goldPath)
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != string(want) {
				t.Fatalf("results differ from %s:\n%s\nwant:\n%s", goldPath, out.String(), want)
			}
		})
	}
}

// TestPlaybackIsStrict: a driver that sends other bytes, or stops early, fails the playback.
func TestPlaybackIsStrict(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "session.transcript"))
	if err != nil {
		t.Fatal(err)
	}
	steps, err := transcript.Parse(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	line, err := ptyline.New("ttyPlayback", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer line.Close()
	line.SetReadTimeout(20 * time.Millisecond)
	player := transcript.Play(line, steps, time.Second)
	dev, err := shuffler.Open(line.Path(), shuffler.Opts{AckTimeout: 5 * time.Second, Poll: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	// The session asks for the status first; asking for a self-test instead is another byte.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	dev.SelfTest(ctx)
	if err := player.Wait(3 * time.Second); err == nil || !strings.Contains(err.Error(), "host sent") {
		t.Fatalf("playback of a wrong command: %v", err)
	}
}
