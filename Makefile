# flameox — set-up, demo, tests, benchmarks.
#   make demo   installs what is missing (Bun from npm when absent, locked dependencies)
#               and runs the main job on fixtures/samples: init, import, hotspots.
#   make test   installs the same way and runs the default test lane: everything that needs
#               nothing beside the repository (vendored corpus in fixtures/corpus), minus the
#               [heavy] cases, which it lists as skipped. Test files run in TEST_JOBS
#               processes at once (default 2; TEST_JOBS=1 runs them one after another).
#   make test-external   the corpus suites again over the external corpus as well
#               ($FLAMEOX_CORPUS, else ../shared/corpus); says so when there is none.
#   make test-heavy      the [heavy] cases (tens of MB generated, whole experiments).
#   .ci/run     all three lanes, one summary.
SHELL := /bin/bash
BUN_VERSION := 1.4.4
BUN_PATH := $(CURDIR)/.tools/bun/bin:$(PATH)

.PHONY: install demo test test-external test-heavy typecheck lint format check bench compile dist clean

# Test files that read the real-artifact corpus, and those with [heavy] cases.
CORPUS_TESTS = $(addprefix ./,$(shell grep -rl --include='*.test.ts' 'corpus-files' tests | sort))
HEAVY_TESTS = $(addprefix ./,$(shell grep -rl --include='*.test.ts' 'heavyTest' tests | sort))
EXTERNAL_CORPUS = $(or $(FLAMEOX_CORPUS),$(abspath $(CURDIR)/../shared/corpus))
# One file at a time keeps about one core busy (a test mostly waits on the one process it
# started: a parse worker, a CLI or MCP server, a workload), so two files run at once.
# tests/timings.json holds each file's duration so the longest start first and none is
# left running alone at the end (refresh it with
# `bun test --parallel=2 --timings tests/timings.json --update-timings`).
TEST_JOBS ?= 2

install:
	@bash scripts/install.sh $(BUN_VERSION)

demo: install
	@set -e; export PATH="$(BUN_PATH)"; \
	  dir="$${DEMO_DIR:-$$(mktemp -d /tmp/flameox-demo.XXXXXX)}"; \
	  fx="bun $(CURDIR)/src/cli/main.ts"; \
	  echo "== workspace in $$dir"; \
	  $$fx init "$$dir"; \
	  cd "$$dir"; \
	  echo "== import a V8 CPU profile"; $$fx import "$(CURDIR)/fixtures/samples/sample.cpuprofile"; \
	  echo "== import a Chrome trace"; $$fx import "$(CURDIR)/fixtures/samples/sample-trace.json"; \
	  art=$$($$fx artifacts list --json | bun -e 'const r=JSON.parse(await Bun.stdin.text()); console.log(r.items.find(a=>a.kinds.includes("sample_profile")).artifact_id)'); \
	  echo "== hotspots of $$art"; $$fx analyze hotspots "$$art" --limit 10; \
	  echo "== validate"; $$fx validate --full

test: install
	@export PATH="$(BUN_PATH)"; unset FLAMEOX_CORPUS FLAMEOX_HEAVY; NO_COLOR=1 bun test --parallel=$(TEST_JOBS) --timings tests/timings.json --timeout 120000

test-external: install
	@export PATH="$(BUN_PATH)"; unset FLAMEOX_HEAVY; \
	  if [ -d "$(EXTERNAL_CORPUS)" ]; then \
	    echo "== external corpus lane: $(EXTERNAL_CORPUS)"; \
	    FLAMEOX_CORPUS="$(EXTERNAL_CORPUS)" NO_COLOR=1 bun test --timeout 300000 $(CORPUS_TESTS); \
	  else \
	    echo "external corpus lane not run: no corpus at $(EXTERNAL_CORPUS) (set FLAMEOX_CORPUS); the files it would add are listed in fixtures/corpus/EXTERNAL.tsv"; \
	  fi

test-heavy: install
	@export PATH="$(BUN_PATH)"; unset FLAMEOX_CORPUS; \
	  FLAMEOX_HEAVY=1 NO_COLOR=1 bun test --timeout 600000 --test-name-pattern '\[heavy\]' $(HEAVY_TESTS)

typecheck: install
	@export PATH="$(BUN_PATH)"; bunx tsc --noEmit -p .

# Biome's linter and formatter (biome.jsonc says which rules are off and why): `biome ci`
# fails on a lint finding or on a file the formatter would change (`make format` fixes those).
lint: install
	@export PATH="$(BUN_PATH)"; ./node_modules/.bin/biome ci --error-on-warnings

format: install
	@export PATH="$(BUN_PATH)"; ./node_modules/.bin/biome format --write

check: typecheck lint

bench: install
	@export PATH="$(BUN_PATH)"; bun run bench/import-bench.ts

# Bytecode (ESM) spares the binary parsing its whole bundle at every start: --version
# went from ~100 ms of CPU to ~10.
compile: install
	@export PATH="$(BUN_PATH)"; bun build --compile --bytecode --format esm --outfile dist/flameox src/cli/main.ts

# Single-file binaries for Linux x64 and arm64 with SHA256SUMS. Bun fetches the runtime of
# a foreign target from the npm registry once (then from its cache); a target it cannot
# get is skipped and named, and the others are still built.
dist: install
	@export PATH="$(BUN_PATH)"; bash scripts/dist.sh

clean:
	rm -rf dist .tools
