# Braid: two commands do everything.
#   make run   build and start `braid serve` (embedded SQLite)
#   make test  everything the project checks
SHELL := /bin/bash
CARGO ?= cargo

.PHONY: run test setup setup-run web fmt lint test-modules deps test-rust test-web mcp-test-servers mcp-conformance generate bench bench-check bench-check-short fuzz chaos build-timings clients

run: setup-run web
	$(CARGO) build --release -p braid-server
	./target/release/braid serve

test: setup fmt test-modules deps test-rust bench-check-short mcp-conformance clients test-web

# `make test` lints as it builds: every cargo command under it compiles the workspace's own
# crates with Clippy's driver, every warning an error (scripts/lint-rustc.sh says why), so it
# runs no `cargo clippy` pass of its own. All of them have it, so none compiles the crates again.
test: export RUSTC_WORKSPACE_WRAPPER := $(CURDIR)/scripts/lint-rustc.sh

# What `make run` needs (Node, Tesseract), then what only the tests need (PostgreSQL, Chromium).
setup-run:
	@scripts/setup-system.sh run

setup:
	@scripts/setup-system.sh test

fmt:
	$(CARGO) fmt --all -- --check

# Clippy, and no integration test file left out of its crate's test binary (what `make test`
# checks, without building the tests).
lint: test-modules
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

test-modules:
	@scripts/test-modules.sh

# The crate arrows of DESIGN.md and no unused dependency: braid-mcp builds braid-tools without
# its built-in tools (no tree-sitter, file watcher or search engine), braid-server does not depend
# on braid-testkit (the load tool is its own crate, braid-load), braid-optimizer and braid-vision
# do not depend on braid-context (not even to test: the arrow points from the context to them),
# and cargo-machete finds nothing unused.
deps:
	@tree=$$($(CARGO) tree --locked -p braid-mcp -e normal) && ! grep -E ' (tree-sitter|notify|grep-searcher|ignore) ' <<<"$$tree" || { echo "crate arrows: braid-mcp compiles the built-in tools"; exit 1; }
	@tree=$$($(CARGO) tree --locked -p braid-server -e normal) && ! grep -q ' braid-testkit ' <<<"$$tree" || { echo "crate arrows: braid-server depends on braid-testkit"; exit 1; }
	@for crate in braid-optimizer braid-vision; do tree=$$($(CARGO) tree --locked -p $$crate -e normal,dev) && ! grep -q ' braid-context ' <<<"$$tree" || { echo "crate arrows: $$crate depends on braid-context"; exit 1; }; done
	@echo "crate arrows: braid-mcp builds without the built-in tools; braid-server does not depend on braid-testkit; braid-optimizer and braid-vision do not depend on braid-context"
	@scripts/unused-deps.sh

# Real MCP servers the tests run (server-everything from npm, mcp-server-time from PyPI), from
# the lockfiles in crates/braid-mcp/tests/servers.
mcp-test-servers:
	crates/braid-mcp/tests/servers/install.sh

# The binaries the later steps run (braid, braid-mock-llm), built as `test-rust` builds them:
# every target of the workspace, so each dependency gets the same features and, after
# `test-rust`, nothing is compiled again. `-p braid-server` alone resolves features for that
# package only, and compiled 27 crates a second time (50 s on a new 2-core machine).
TEST_BINS = $(CARGO) build --locked --workspace --all-targets

# Every target's tests, then the doc tests; the crash campaign and the benches in test mode run
# beside the other tests (scripts/test-rust.sh says why).
test-rust: mcp-test-servers
	CARGO=$(CARGO) scripts/with-postgres.sh scripts/test-rust.sh

# The official MCP conformance suite (client mode) against `braid mcp conformance`: the frozen
# requirement sets 2025-11-25 and 2026-07-28 with the extensions they run unscored, from
# crates/braid-mcp/tests/conformance/package-lock.json; expected failures in baseline.yml there.
# Prints one summary line; the suite's own output is in target/mcp-conformance/suite-*.log.
mcp-conformance:
	$(TEST_BINS)
	CARGO_TARGET_DIR=$${CARGO_TARGET_DIR:-target} scripts/mcp-conformance.sh

# The web UI, built into web/dist (served by `braid serve`). Dependencies come from the lockfile.
# `npm ci` runs again only when the lockfile is newer than what it installed, and the build only
# when a source is newer than web/dist.
WEB_SOURCES := $(shell find web/src web/scripts web/typecheck -type f 2>/dev/null) \
	web/index.html web/package.json web/tsconfig.json web/vite.config.ts
web: web/dist/index.html

web/node_modules/.package-lock.json: web/package-lock.json
	cd web && npm ci --no-audit --no-fund

web/dist/index.html: web/node_modules/.package-lock.json $(WEB_SOURCES)
	cd web && npm run build
	@touch $@

# Vitest, then the Playwright end-to-end tests (a real braid serve, the mock LLM and Debian's
# Chromium; the MCP test runs server-everything from mcp-test-servers).
test-web: web mcp-test-servers
	cd web && npm test
	$(TEST_BINS)
	cd web && npm run test:e2e

# Clients generated from the served OpenAPI document, driven against a real `braid serve` with
# the mock model: openapi-python-client's Python client (no warning allowed; the copy in
# sdk/python/braid_sdk/_api must be current), then the Python SDK's tests and README example,
# then the TypeScript types, SDK checks and README example; each SDK also approves, denies,
# resumes and interrupts against a second server whose mock follows those tests' script.
clients:
	$(TEST_BINS)
	CARGO_TARGET_DIR=$${CARGO_TARGET_DIR:-target} scripts/clients.sh

# Regenerate what the web UI is built on: the protocol types (ts-rs, from braid-protocol), the
# server's OpenAPI document (aide, from braid-server's handlers) and the API client's types
# (openapi-typescript, from that document). Tests fail when any of the three is stale.
generate:
	BRAID_UPDATE_TS=1 $(CARGO) test -p braid-protocol --lib typescript
	BRAID_UPDATE_TS=1 $(CARGO) test -p braid-server --lib openapi::tests::the_committed_document_is_current
	cd web && npm ci --no-audit --no-fund && npm run generate
	$(TEST_BINS)
	BRAID_UPDATE_CLIENTS=1 scripts/clients.sh

bench:
	$(CARGO) bench --workspace

# The timing targets as a gate (issue 47): the criterion benches that stand for seed 001's
# targets (state transition, add a message, tool overhead, optimize 1,000 messages, save after a
# change, load 100 messages), each judged against the seed's target and Braid's own lower one;
# fails when a median is over either. The table of targets is in scripts/bench-check.sh.
bench-check:
	CARGO=$(CARGO) scripts/bench-check.sh

# The same gate with few samples (about twenty seconds of measuring), as `make test` runs it, on
# the benches the test build compiled (slower code than a release build's, so a stricter gate;
# after test-rust it compiles nothing).
bench-check-short:
	BENCH_CHECK_MODE=short CARGO=$(CARGO) scripts/bench-check.sh

# The timing table of a clean build (issue 48): cargo fetch into an empty CARGO_HOME, npm ci, the
# UI build, the release build `make run` does and the debug build of every target `make test`
# does, each with wall and CPU time, in a fresh target directory (target/build-timings, which it
# empties first); cargo's per-crate reports are kept there. Takes as long as a first build.
build-timings:
	BUILD_TIMINGS_FRESH_HOME=1 CARGO=$(CARGO) scripts/build-timings.sh

# Fuzzing on stable Rust: the fuzz targets `make test` runs briefly (crates/*/tests/fuzz.rs), now
# with FUZZ_CASES cases each, every target bounded by FUZZ_SECONDS; prints one summary line.
FUZZ_CASES ?= 200000
FUZZ_SECONDS ?= 120
fuzz:
	FUZZ_CASES=$(FUZZ_CASES) FUZZ_SECONDS=$(FUZZ_SECONDS) CARGO=$(CARGO) scripts/fuzz.sh

# The crash campaign (issue 14) at length: CHAOS_KILLS SIGKILLs of a real braid serve, on SQLite
# and on PostgreSQL (make test runs 20 of each); CHAOS_SEED=N repeats a run, CHAOS_CONTEXTS sets
# how many conversations run at once. Prints each kill and problem as it happens, then one
# summary line per store (also in target/chaos-report.txt).
CHAOS_KILLS ?= 200
CHAOS_CONTEXTS ?= 6
chaos:
	set -o pipefail; report="$${CARGO_TARGET_DIR:-target}/chaos-report.txt"; mkdir -p "$$(dirname "$$report")"; \
	BRAID_CHAOS_KILLS=$(CHAOS_KILLS) BRAID_CHAOS_CONTEXTS=$(CHAOS_CONTEXTS) $(if $(CHAOS_SEED),BRAID_CHAOS_SEED=$(CHAOS_SEED)) \
	scripts/with-postgres.sh $(CARGO) test --locked -p braid-server --test crash_campaign -- --nocapture --test-threads=1 2>&1 \
	| grep --line-buffered -E '^chaos|panicked at|^test result' | tee "$$report.full"; status=$$?; \
	grep '^chaos summary' "$$report.full" | sort -u > "$$report"; echo "== chaos figures"; cat "$$report"; exit $$status
