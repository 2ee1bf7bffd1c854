# schedlab — everything a fresh machine needs is installed by `make setup`, which demo and test
# depend on: Go modules, the HiGHS WebAssembly build (npm package highs@1.15.3, sha256-checked),
# Debian's Chromium for the HTML-report test and Debian's Slurm and munge for the Slurm test.

GO        ?= go
BIN       := bin/schedlab
PKGS      := ./...
FUZZTIME  ?= 10s
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all setup deps highs chromium slurm build demo test test-short fuzz bench bench-traces verify clean image

all: build

setup: deps highs chromium slurm

deps:
	@echo "==> setup: Go modules (go mod download)"
	$(GO) mod download

highs: deps
	@echo "==> setup: the HiGHS WebAssembly solver"
	$(GO) run ./cmd/schedlab solver install

# Chromium renders the HTML report in a test (headless). Installed from Debian's packages.
chromium:
	@echo "==> setup: Chromium for the HTML-report test"
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian chromium for the report test"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; }

# Slurm (slurmctld, slurmd, sbatch) and munge for the Slurm test, which starts its own one-node
# cluster (cmd/schedlab/slurm_test.go). Debian's packages; nothing is done when they are installed.
slurm:
	@echo "==> setup: Slurm and munge for the Slurm test"
	@dpkg -s slurm-wlm munge >/dev/null 2>&1 || { \
	  echo "installing Debian slurm-wlm and munge for the Slurm test"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq slurm-wlm munge >/dev/null; }

build: deps
	$(GO) build -o $(BIN) ./cmd/schedlab

# The main job on the embedded default workload (no download).
demo: build highs
	./$(BIN) run --policy fifo
	./$(BIN) run --policy drf

# Unit, scenario, golden, fuzz-corpus and determinism tests, with engine invariant checks and the
# race detector. internal/testprogress prints each package as it finishes and, every minute, the
# packages still running (go test alone prints in package order, so the slowest first package
# hid all the others).
test: setup
	@echo "==> test: go vet"
	$(GO) vet $(PKGS)
	@echo "==> test: go test -race -tags invariants (a line per package as it finishes; a status line each minute)"
	bash -o pipefail -c '$(GO) test -race -tags invariants -timeout 20m -json $(PKGS) | $(GO) run ./internal/testprogress'

test-short: deps
	$(GO) test -short $(PKGS)

# Short coverage-guided fuzzing of every parser (FUZZTIME each).
fuzz: deps
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

bench: deps
	$(GO) test -run '^$$' -bench . -benchtime 3x ./replay/

# Trace import, gunzip, canonical write/read and load-vs-CSV benchmarks on one core (the
# google2011 ones need ../shared/data and skip without it).
bench-traces: deps
	GOMAXPROCS=1 $(GO) test -run '^$$' -bench 'Writer|Read' -benchtime 3x ./traces/canonical/
	GOMAXPROCS=1 $(GO) test -run '^$$' -bench 'Import|ScanJobs|Load|Gunzip' -benchtime 2x ./traces/google2011/
	GOMAXPROCS=1 $(GO) test -run '^$$' -bench 'GoogleWindow' -benchtime 1x ./experiments/

verify: deps
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet $(PKGS)
	$(GO) mod tidy -diff

# The container image of the Kubernetes sweep jobs (Dockerfile; needs Docker with BuildKit):
# schedlab:<version>, or IMAGE=registry/name:tag.
IMAGE ?= schedlab:$(shell sed -n 's/^const Version = "\(.*\)"/\1/p' experiments/run.go)
image:
	docker build -t $(IMAGE) .

clean:
	rm -rf bin
