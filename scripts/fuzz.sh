#!/usr/bin/env bash
# `make fuzz`: every fuzz target (crates/*/tests/fuzz.rs, see braid_testkit::fuzz) with many
# cases, each target stopping early once its time budget is spent, then one summary line:
#   fuzz: 27 targets, 1234567 cases, 0 failed, 812s
# FUZZ_CASES (default 200000) and FUZZ_SECONDS (default 120, per target) tune the run; the
# targets of one crate run in parallel. The exit status is non-zero when a target failed.
set -uo pipefail

cases="${FUZZ_CASES:-200000}"
seconds="${FUZZ_SECONDS:-120}"
cargo="${CARGO:-cargo}"
log="$(mktemp /tmp/braid-fuzz.XXXXXX)"
trap 'rm -f "$log"' EXIT
started=$SECONDS
status=0

for file in crates/*/tests/fuzz.rs; do
  crate="$(basename "$(dirname "$(dirname "$file")")")"
  echo "== $crate"
  # The outer timeout is a backstop (building included); the budget inside each target is the
  # bound that matters.
  PROPTEST_CASES="$cases" BRAID_FUZZ_SECONDS="$seconds" \
    timeout --kill-after=30 "$((seconds * 4 + 1200))" \
    "$cargo" test --locked -p "$crate" --test integration -- fuzz:: --nocapture 2>&1 \
    | tee -a "$log" | grep -E '^fuzz |panicked at|^test result'
  if [ "${PIPESTATUS[0]}" -ne 0 ]; then
    status=1
    echo "== $crate: FAILED (the full output is above the summary)"
  fi
done

targets="$(grep -cE '^fuzz [a-z_]+: [0-9]+ cases' "$log")"
total="$(grep -oE '^fuzz [a-z_]+: [0-9]+ cases' "$log" | awk '{s += $3} END {print s + 0}')"
# A failing target's panic message starts `fuzz <name>: <reason>` (no case count).
failed="$(grep -E '^fuzz [a-z_]+: ' "$log" | grep -cvE ': [0-9]+ cases in ')"
if [ "$status" -ne 0 ]; then
  grep -A40 -E 'minimal failing input|panicked at' "$log" | head -200
fi
echo "fuzz: $targets targets, $total cases, $failed failed, $((SECONDS - started))s"
exit "$status"
