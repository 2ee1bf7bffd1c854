# schedlab — everything a fresh machine needs is installed by `make setup`, which demo and test
# depend on: Go modules, the HiGHS WebAssembly build (npm package highs@1.15.3, sha256-checked),
# Debian's Chromium for the HTML-report test, Debian's Slurm and munge for the Slurm test, podman
# and buildah for the container image, and Python 3 for the external-scheduler client's tests.

GO        ?= go
BIN       := bin/schedlab
PKGS      := ./...
FUZZTIME  ?= 10s
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all setup deps highs chromium slurm podman python build demo test test-short fuzz bench bench-traces bench-scale verify clean image

all: build

setup: deps highs chromium slurm podman python

deps:
	@echo "==> setup: Go modules (go mod download)"
	$(GO) mod download

# solver check compiles HiGHS into wazero's cache once for this machine (a few seconds), so no
# later run, nor a test that reads a command's stderr, waits for it or sees its notice.
highs: build
	@echo "==> setup: the HiGHS WebAssembly solver"
	./$(BIN) solver install
	./$(BIN) solver check >/dev/null

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

# podman and buildah (with runc: crun refuses hybrid cgroup hosts) build the container image and
# run it in a test (cmd/schedlab/image_run_test.go) where there is no Docker engine.
podman:
	@echo "==> setup: podman, buildah and runc for the container image and its test"
	@dpkg -s podman buildah runc >/dev/null 2>&1 || { \
	  echo "installing Debian podman, buildah and runc for the image test"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq podman buildah runc >/dev/null; }

# Python 3 (standard library only) runs the external-scheduler client, its baseline ports and its
# Gymnasium-style environment in policies/external's tests. Debian's python3 when none is found.
python:
	@echo "==> setup: Python 3 for the external-scheduler client tests"
	@command -v python3 >/dev/null 2>&1 || { \
	  echo "installing Debian python3 for the external-scheduler tests"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3 >/dev/null; }

# One build configuration for every schedlab binary (CGO_ENABLED=0: static, so the container
# image can run it FROM scratch). Tests that run schedlab as a process, or build a variant of it,
# use this binary or this configuration (internal/testbin): each other configuration would compile
# the whole dependency graph again, minutes on a cold cache.
build: deps
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/schedlab

# The main job on the embedded default workload (no download).
demo: build highs
	./$(BIN) run --policy fifo
	./$(BIN) run --policy drf

# Unit, scenario, golden, fuzz-corpus and determinism tests, with engine invariant checks and the
# race detector. internal/testprogress prints each package as it finishes and, every minute, the
# packages still running, or that go test is still compiling (minutes under -race; go test alone
# prints in package order, so the slowest first package hid all the others). -timeout 20m is
# per package: cmd/schedlab, the longest, takes 2.5 min (5 min at load average 10).
#
# Cold-cache costs avoided here (measured in issue 29's closing note): tests that run schedlab as a
# process use the bin/schedlab just built ($$SCHEDLAB_TEST_BIN, internal/testbin) instead of
# compiling their own; and wazero's compiled HiGHS, cached per wazero version, is cached under
# "dev" for test binaries, so one solver test fills that cache before the packages that would
# each compile HiGHS under -race (about 20 s of two cores each) start side by side. go vet takes
# the test phase's flags (-race -tags invariants): with the default flags it compiled every
# dependency a second time, in a configuration nothing else uses (`make verify` vets the default
# build). The test binaries are linked without DWARF (-ldflags=-w: stack traces and race reports
# use the pcln table, not DWARF), which cuts the link of a large race-built test binary from
# 8.6 s to 3.3 s (experiments' tests), for each of the ~60 packages.
test: setup
	@echo "==> test: go vet (with the test phase's build flags, so it compiles what the tests reuse)"
	$(GO) vet -race -tags invariants $(PKGS)
	@echo "==> test: HiGHS compiled once for the race-built test binaries (wazero's cache)"
	$(GO) test -race -tags invariants -ldflags=-w -count 1 -run '^TestCheck$$' ./policies/solver
	@echo "==> test: go test -race -tags invariants (a line per package as it finishes; a status line each minute)"
	bash -o pipefail -c 'SCHEDLAB_TEST_BIN=$(CURDIR)/$(BIN) $(GO) test -race -tags invariants -ldflags=-w -timeout 20m -json $(PKGS) | $(GO) run ./internal/testprogress'

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

# The field's scales (50,000 machines × 100,000 jobs; 10,000 machines × 1 M tasks): minutes, once.
bench-scale: deps
	$(GO) test -tags scale -run '^$$' -bench 'BenchmarkScale|BenchmarkFlat' -benchtime 1x -cpu 1 -timeout 60m ./replay/

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

# The container image of the Kubernetes sweep jobs (Dockerfile): schedlab:<version>, or
# IMAGE=registry/name:tag. With a running Docker engine, docker build compiles it in a Go
# container on distroless. Without one (nothing can be pulled), buildah (else podman) builds it
# FROM scratch from bin/image/out: the static binary and highs.wasm made here (vfs storage).
IMAGE ?= schedlab:$(shell sed -n 's/^const Version = "\(.*\)"/\1/p' experiments/run.go)
IMAGE_CTX := bin/image
image: highs
	@set -e; if docker info >/dev/null 2>&1; then docker build -t $(IMAGE) .; else \
	  rm -rf $(IMAGE_CTX) && mkdir -p $(IMAGE_CTX)/out/bin $(IMAGE_CTX)/out/highs $(IMAGE_CTX)/out/work && \
	  cp $(BIN) $(IMAGE_CTX)/out/bin/schedlab && \
	  cp third_party/highs/highs.* $(IMAGE_CTX)/out/highs/ 2>/dev/null || true; \
	  $(IMAGE_CTX)/out/bin/schedlab solver install --dest $(IMAGE_CTX)/out/highs; \
	  if command -v buildah >/dev/null; then B="buildah --storage-driver vfs bud --layers --force-rm"; \
	  elif command -v podman >/dev/null; then B="podman --storage-driver vfs build"; \
	  else echo "make image: no docker engine, buildah or podman (make setup installs buildah and podman)"; exit 1; fi; \
	  echo "$$B -t $(IMAGE) (FROM scratch, prebuilt in $(IMAGE_CTX))"; \
	  $$B --pull=never --build-arg BUILD=prebuilt --build-arg BASE=scratch -f Dockerfile -t $(IMAGE) $(IMAGE_CTX); fi

clean:
	rm -rf bin
