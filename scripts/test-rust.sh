#!/usr/bin/env bash
# The Rust tests of `make test` (every target of the workspace, then the doc tests), in two lanes
# at once. `cargo test` runs one test binary after another, and a binary whose tests wait more
# than they compute leaves a core idle: the crash campaign (SIGKILLs of a real braid serve and
# the waits for it to come back) takes about two minutes at a little over one core, and the
# benches in test mode mostly build their fixtures on one thread. They run in the second lane,
# beside the other tests; the first lane's output is the one printed, the second's goes to a log
# that is printed when it fails. Run under scripts/with-postgres.sh (the Makefile does).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo=${CARGO:-cargo}
target=${CARGO_TARGET_DIR:-target}

# One build for both lanes, so that neither compiles while the other runs.
$cargo test --workspace --all-targets --locked --no-run

# `--workspace` with a target name keeps the features of the build above (`-p braid-server`
# would resolve them for that package alone and compile again).
lane_log="$target/test-rust-second-lane.log"
(
    $cargo test --workspace --locked --test crash_campaign
    $cargo test --workspace --locked --bench '*'
) >"$lane_log" 2>&1 &
lane=$!

status=0
$cargo test --workspace --lib --bins --tests --examples --locked -- \
    --skip sqlite_crash_campaign_loses_nothing --skip postgres_crash_campaign_loses_nothing ||
    status=$?

if wait "$lane"; then
    echo "test-rust: the crash campaign and the benches in test mode passed (output in $lane_log)"
else
    cat "$lane_log"
    echo "test-rust: the crash campaign or a bench in test mode failed (its output is above)"
    status=1
fi
[ "$status" -eq 0 ] || exit "$status"

$cargo test --workspace --doc --locked
