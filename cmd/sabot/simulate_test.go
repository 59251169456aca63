package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestSimulateGolden keeps a whole shoe of each family as a golden transcript (the human feed of
// `sabot simulate --seed 1`): any change to the shoe procedures, the engines or the feed shows up
// as a diff to review. -update rewrites them.
func TestSimulateGolden(t *testing.T) {
	for _, game := range []string{"punto-banco", "blackjack", "trente-et-quarante", "holdem", "chemin-de-fer"} {
		t.Run(game, func(t *testing.T) {
			var out, errb bytes.Buffer
			shoes := "1"
			if game == "holdem" {
				shoes = "3" // three one-deck rounds
			}
			args := []string{"simulate", "--game", game, "--shoes", shoes, "--seed", "1", "--misread-every", "61"}
			if err := run(context.Background(), args, nil, &out, &errb); err != nil {
				t.Fatalf("%v: %s", err, errb.String())
			}
			path := filepath.Join("testdata", "simulate", game+".golden")
			if *update {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				g, w := strings.Split(out.String(), "\n"), strings.Split(string(want), "\n")
				for i := range min(len(g), len(w)) {
					if g[i] != w[i] {
						t.Fatalf("line %d differs:\n got:  %s\n want: %s", i+1, g[i], w[i])
					}
				}
				t.Fatalf("%d lines, golden has %d", len(g), len(w))
			}
		})
	}
}

// The same seed gives the same bytes; another seed does not.
func TestSimulateDeterministic(t *testing.T) {
	sim := func(seed string) string {
		var out, errb bytes.Buffer
		if err := run(context.Background(), []string{"simulate", "--shoes", "2", "--seed", seed, "--json"}, nil, &out, &errb); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	a, b, c := sim("9"), sim("9"), sim("10")
	if a != b || a == c || strings.Count(a, "\n") < 2000 {
		t.Fatalf("same seed equal: %v; other seed differs: %v; %d lines", a == b, a != c, strings.Count(a, "\n"))
	}
}

func TestSimulateBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--game", "bingo"}, `unknown game "bingo"`},
		{[]string{"simulate", "--shoes", "0"}, "--shoes must be at least 1"},
		{[]string{"simulate", "--table", "T/1"}, "only letters"},
		{[]string{"simulate", "--game", "blackjack", "--rules", "vegas"}, "vegas"},
	} {
		var out, errb bytes.Buffer
		err := run(context.Background(), tc.args, nil, &out, &errb)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}
