# Sabot. `make` lists the targets.
SHELL := bash
export PATH := $(PATH):/usr/local/go/bin
GO ?= go
TABLE ?= T1
GAME ?= punto-banco
# Flags for `make run`, e.g. make run RUNFLAGS='--sim-pace 100ms --sim-misread-every 40'
HTTP ?= 127.0.0.1:8080
TERMINAL ?= 127.0.0.1:8081
RUNFLAGS ?=

.PHONY: help deps build run test test-dev bench fuzz lint clean

help: ## list the targets
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-7s %s\n", $$1, $$2}'

deps: ## install the Debian packages that are missing (needs root or sudo)
	@.ci/deps

build: deps ## build bin/sabotd and bin/sabot
	$(GO) build -o bin/ ./cmd/...

# The progressive games (RULES.md §7) run with a development progressive controller on SQLite.
PROGRESSIVE_GAMES := caribbean-stud draw-poker go-poker

run: build ## a whole simulated table: embedded broker on 127.0.0.1:1883, simulated devices, live feed, web view, dealer terminal
ifneq ($(filter $(GAME),$(PROGRESSIVE_GAMES)),)
	@mkdir -p var/keys
	bin/sabot progressive serve --dev-table $(TABLE) --dev-keys var/keys --db var/progressive.db \
	  --mqtt tcp://127.0.0.1:1883 >var/progressive.log 2>&1 & pid=$$!; \
	  trap "kill $$pid 2>/dev/null" EXIT; \
	  bin/sabotd --sim --table $(TABLE) --game $(GAME) --http $(HTTP) --terminal $(TERMINAL) --progressive-pool arica \
	    --require-ack progressive.dev $(RUNFLAGS)
else
	bin/sabotd --sim --table $(TABLE) --game $(GAME) --http $(HTTP) --terminal $(TERMINAL) $(RUNFLAGS)
endif

test: deps ## the whole test suite (what CI runs)
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 40m -tags matprofile ./...
	# the data-race detector over the shoe, the bus and the daemon's own goroutines
	$(GO) test -race -short -count=1 -timeout 20m ./shoe/ ./tablebus/... ./games/follow
	$(GO) test -race -count=1 -run 'RunInProcess' ./cmd/sabotd/

# The checks on the labelled dev frames beside the repository (../shared/vision-dev, or
# SABOT_VISION_DEV): CI runs them after make test; the repository's own tests need nothing beside it.
test-dev: deps ## the recognizer on ../shared/vision-dev: 0 wrong answers, figures per design
	$(GO) test -count=1 -timeout 40m -tags 'dev matprofile' -run '^TestDevDecks$$' -v ./vision/cv

bench: deps ## every benchmark, with the figures the issues ask for (also in bench.out)
	# OpenCV on one thread: issue 17's recognition speeds are for one core.
	set -o pipefail; OPENCV_FOR_THREADS_NUM=1 $(GO) test -run '^$$' -bench . -timeout 60m ./... 2>&1 | tee bench.out

fuzz: ## run every fuzz target for FUZZTIME each (default 10s)
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $${FUZZTIME:-10s} $$pkg || exit 1; \
	  done; done

lint: ## gofmt, go vet, and go.mod as go mod tidy leaves it
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	# tidy also reads the dependencies' own tests, whose modules `go mod download` does not fetch:
	# this step may download them, so it is here and not in `make test`
	@$(GO) mod tidy -diff || { echo 'lint: go.mod or go.sum is not tidy: run go mod tidy' >&2; exit 1; }

clean: ## remove build outputs and the local journals
	rm -rf bin var bench.out
