# flameox — set-up, demo, tests, benchmarks.
#   make demo   installs what is missing (Bun from npm when absent, locked dependencies)
#               and runs the main job on fixtures/samples: init, import, hotspots.
#   make test   installs the same way and runs the whole test suite.
SHELL := /bin/bash
BUN_VERSION := 1.4.4
BUN_PATH := $(CURDIR)/.tools/bun/bin:$(PATH)

.PHONY: install demo test typecheck bench compile dist clean

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
	@export PATH="$(BUN_PATH)"; NO_COLOR=1 bun test --timeout 120000

typecheck: install
	@export PATH="$(BUN_PATH)"; bunx tsc --noEmit -p .

bench: install
	@export PATH="$(BUN_PATH)"; bun run bench/import-bench.ts

compile: install
	@export PATH="$(BUN_PATH)"; bun build --compile --outfile dist/flameox src/cli/main.ts

# Single-file binaries for Linux x64 and arm64 with SHA256SUMS. Bun fetches the runtime of
# a foreign target from the npm registry once (then from its cache); a target it cannot
# get is skipped and named, and the others are still built.
dist: install
	@export PATH="$(BUN_PATH)"; bash scripts/dist.sh

clean:
	rm -rf dist .tools
