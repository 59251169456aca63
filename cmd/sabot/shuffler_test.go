package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestShufflerCommands(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    string // stdout, exactly
		wantErr error
	}{
		{"status", []string{"shuffler", "status", "--sim", "--sim-decks", "6"}, "", nil},
		{"selftest", []string{"shuffler", "selftest", "--sim"}, "self-test passed: all sensors and motors pass\n", nil},
		{"shuffle", []string{"shuffler", "shuffle", "--sim", "--decks", "8"},
			"load verified: 8 complete decks (416 cards)\n416 cards shuffled (batch)\n", nil},
		{"shuffle one deck per round", []string{"shuffler", "shuffle", "--sim", "--sim-decks", "1", "--decks", "1", "--mode", "deck"},
			"load verified: 1 complete decks (52 cards)\n52 cards shuffled (deck-per-round)\n", nil},
		{"hand forming", []string{"shuffler", "shuffle", "--sim", "--sim-decks", "1", "--decks", "1", "--mode", "hands", "--hands", "7", "--cards", "7"},
			"load verified: 1 complete decks (52 cards)\n49 cards shuffled (hand-forming)\n", nil},
		{"incomplete load", []string{"shuffler", "shuffle", "--sim", "--sim-decks", "6", "--decks", "8"}, "", nil},
		{"bad mode", []string{"shuffler", "shuffle", "--sim", "--mode", "riffle"}, "", errUsage},
		{"no port", []string{"shuffler", "status"}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(context.Background(), tt.args, strings.NewReader(""), &out, &errb)
			switch tt.name {
			case "status":
				if err != nil || !strings.Contains(out.String(), "state     idle\n") || !strings.Contains(out.String(), "input     312 cards\n") {
					t.Fatalf("err %v, out:\n%s", err, out.String())
				}
				return
			case "incomplete load":
				if err == nil || !strings.Contains(err.Error(), "missing As×2") {
					t.Fatalf("err %v", err)
				}
				return
			case "no port":
				if err == nil || !strings.Contains(err.Error(), "--port is required") {
					t.Fatalf("err %v", err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err %v, want %v (stderr %s)", err, tt.wantErr, errb.String())
			}
			if out.String() != tt.want {
				t.Fatalf("stdout %q, want %q", out.String(), tt.want)
			}
		})
	}
}

func TestShufflerRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shuffle.transcript")
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"shuffler", "status", "--sim", "--record", path}, strings.NewReader(""), &out, &errb); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The header, then SYNC as the first bytes the host sends.
	lines := strings.Split(string(b), "\n")
	if !strings.HasPrefix(lines[0], "# sabot transcript v1 shuffler ") || !strings.HasSuffix(lines[1], "> 02 00 02 00 00 ea a0 03") {
		t.Fatalf("transcript starts %q", lines[:2])
	}
}

func TestShoeWatch(t *testing.T) {
	var out, errb bytes.Buffer
	path := filepath.Join(t.TempDir(), "shoe.transcript")
	err := run(context.Background(), []string{"shoe", "watch", "--sim", "--sim-decks", "1", "--sim-pace", "1ms", "--count", "52", "--record", path},
		strings.NewReader(""), &out, &errb)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	// 46 cards, the cut card with 6 behind it, 6 more cards: 52 draws shown.
	if len(lines) != 52 || !strings.Contains(lines[46], "CUT CARD") || !strings.Contains(lines[0], "card  ") {
		t.Fatalf("%d lines:\n%s", len(lines), out.String())
	}
	if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), "< 20 5b 47 61 6d 65 5d") {
		t.Fatalf("transcript: %v\n%s", err, b)
	}
	if err := run(context.Background(), []string{"shoe", "watch"}, strings.NewReader(""), &out, &errb); !errors.Is(err, errUsage) {
		t.Fatalf("no port: %v", err)
	}
}

func TestShoeGPIO(t *testing.T) {
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"shoe", "gpio", "--sim", "--count", "3"}, strings.NewReader(""), &out, &errb)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if f := strings.Fields(l); len(f) >= 3 {
			events = append(events, strings.Join(f[2:], " "))
		}
	}
	// Three cards, each in and out once, the lid and the confirm button after the second.
	want := []string{"card enter", "card exit after", "card enter", "card exit after", "lid open", "lid closed", "confirm", "card enter", "card exit after"}
	ok := len(events) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = strings.HasPrefix(events[i], want[i])
	}
	if !ok {
		t.Fatalf("events %q\nwant %q", events, want)
	}
	// On this machine there is no such GPIO: a clear error, not a panic.
	if err := run(context.Background(), []string{"shoe", "gpio", "--exit", "NOPE"}, strings.NewReader(""), &out, &errb); err == nil {
		t.Fatal("a missing pin was accepted")
	}
}
