#!/usr/bin/env bash
# The timing targets as a gate (issue 47): runs the criterion benches that stand for seed 001's
# performance targets and fails when a median is over its target. Each bench has two targets:
# the seed's (the requirement) and Braid's own, far lower (what Braid measured, with room for a
# busy machine); a median over either fails.
#
#   scripts/bench-check.sh           criterion's usual sampling (about a minute per bench)
#   BENCH_CHECK_MODE=short ...       few samples (what `make test` runs): a regression still fails
#   BENCH_CHECK_MODE=report ...      no run: judges the medians of the last run
#
# The store benches measure SQLite (PostgreSQL is measured too when BRAID_TEST_POSTGRES_URL is
# set, but only SQLite's figures are judged: the seed's targets are for the embedded store).
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO=${CARGO:-cargo}
target_dir=${CARGO_TARGET_DIR:-target}
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
mode=${BENCH_CHECK_MODE:-full}

# crate, bench target, criterion id, seed target (ms), Braid's target (ms), what it stands for.
TABLE="$(cat <<'EOF'
braid-context   engine     engine/state_transition_with_event                 10   0.5  state transition (checked move, history, context_update into the event log)
braid-context   engine     engine/add_message_through_pipeline_and_store      50   10   add a message (the whole pipeline, then the store write)
braid-context   engine     engine/noop_tool_through_registry_with_result      10   0.5  tool execution overhead (registry, argument check, result)
braid-optimizer optimizer  optimizer/plan_1000_messages_cold_cache            500  100  optimize 1,000 messages (every message tokenized)
braid-store     store      save_typical_change_to_1k_context/sqlite           200  20   save after a change (answer, status, state) to a 1,000-message context
braid-store     store      load_newest_100_of_10k_branch/sqlite               100  20   load 100 messages (the newest of a 10,000-message branch)
braid-store     store      search_10k_messages/rare_word/sqlite               50   10   search 10,000 messages for a word in 1% of them (issue 46)
braid-store     store      search_10k_messages/common_word/sqlite             50   50   search 10,000 messages for a word in every one (issue 46; 30 ms measured)
EOF
)"

# The short gate runs the benches as the test build compiled them (`cargo test --workspace
# --all-targets` builds every bench target in the test profile, so after `make test`'s
# test-rust step nothing is compiled): Braid's crates unoptimized, the dependencies of the hot
# paths at opt-level 1 (Cargo.toml). That code is slower than a release build's, so a median
# within its targets here is within them in a release build too. The full run measures what
# `cargo bench` builds.
case "$mode" in
  full) criterion_args=() profile=(--profile bench) ;;
  short) criterion_args=(--warm-up-time 0.3 --measurement-time 1 --sample-size 10) profile=(--profile test) ;;
  report) criterion_args=() profile=() ;;
  *) echo "bench-check: BENCH_CHECK_MODE must be full, short or report, not '$mode'" >&2; exit 2 ;;
esac

if [ "$mode" != report ]; then
  # One cargo run for every bench target, filtered to the ids the table names; stale results are
  # removed first so a bench that did not run cannot pass on an old figure. `--workspace`, not
  # the table's crates: features are then resolved as for the whole workspace, as the test build
  # resolved them, so its compiled crates are used as they are (with `-p` for three crates, cargo
  # compiled every Braid crate again).
  benches=()
  for bench in $(awk '{ print $2 }' <<<"$TABLE" | sort -u); do benches+=(--bench "$bench"); done
  ids=$(awk '{ print $3 }' <<<"$TABLE")
  for id in $ids; do rm -rf "$target_dir/criterion/$id/new"; done
  filter="^($(paste -sd'|' <<<"$ids"))\$"
  echo "== bench-check: ${benches[*]} ($mode, ${profile[1]} profile)"
  "$CARGO" bench --locked "${profile[@]}" --workspace "${benches[@]}" -- "${criterion_args[@]}" "$filter"
fi

echo "== bench-check: medians against the targets"
failed=0
while read -r crate bench id seed own what; do
  estimates="$target_dir/criterion/$id/new/estimates.json"
  if [ ! -f "$estimates" ]; then
    echo "bench-check: FAIL $id: no result ($estimates is missing; did $crate --bench $bench run?)"
    failed=1
    continue
  fi
  verdict=$(python3 - "$estimates" "$seed" "$own" <<'PY'
import json, sys
path, seed, own = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
with open(path) as f:
    median_ms = json.load(f)["median"]["point_estimate"] / 1e6
over = [name for name, limit in (("the seed's", seed), ("Braid's", own)) if median_ms > limit]
status = "FAIL" if over else "ok"
note = f" (over {' and '.join(over)} target)" if over else ""
print(f"{status} median {median_ms:.4f} ms, targets: seed < {seed:g} ms, Braid < {own:g} ms{note}")
PY
  )
  echo "bench-check: $id: $verdict; $what"
  case "$verdict" in FAIL*) failed=1 ;; esac
done <<<"$TABLE"

if [ "$failed" -ne 0 ]; then
  echo "bench-check: a median is over its target (figures above; criterion's reports are in $target_dir/criterion)"
  exit 1
fi
echo "bench-check: every median is within its targets"
