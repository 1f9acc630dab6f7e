#!/usr/bin/env bash
# Prints the timing table of a clean build (issue 48): each step `make run` and `make test` pay on
# a new machine, in a fresh target directory (and, with BUILD_TIMINGS_FRESH_HOME=1, a fresh
# CARGO_HOME, so `cargo fetch` downloads every crate). Wall time depends on what else the machine
# runs; CPU time (user+sys of the step and its children) does not, so both are shown.
# Cargo's own per-crate reports (`--timings`) are kept under the timing directory.
#
#   BUILD_TIMINGS_DIR         where the clean target (and cargo home) go; default target/build-timings
#   BUILD_TIMINGS_FRESH_HOME  1: fetch into an empty CARGO_HOME there as well
#   BUILD_TIMINGS_STEPS       the steps to run, of: fetch web-ci web-build release debug
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO=${CARGO:-cargo}
dir=$(realpath -m "${BUILD_TIMINGS_DIR:-target/build-timings}")
steps=${BUILD_TIMINGS_STEPS:-fetch web-ci web-build release debug}

rm -rf "$dir/target"
mkdir -p "$dir/target" "$dir/reports"
export CARGO_TARGET_DIR="$dir/target"
if [ "${BUILD_TIMINGS_FRESH_HOME:-0}" = 1 ]; then
    rm -rf "$dir/cargo-home"
    mkdir -p "$dir/cargo-home"
    export CARGO_HOME="$dir/cargo-home"
fi
table="$dir/reports/table.txt"
: >"$table"

# Runs one step under GNU time; appends `name wall user+sys` to the table.
step() {
    local name=$1
    shift
    local times="$dir/reports/$name.time"
    echo "== $name: $*" >&2
    /usr/bin/time -o "$times" -f '%e %U %S' "$@" >"$dir/reports/$name.log" 2>&1 || {
        echo "build-timings: step $name failed; its output is in $dir/reports/$name.log" >&2
        tail -20 "$dir/reports/$name.log" >&2
        exit 1
    }
    read -r wall user sys <"$times"
    echo "$name $wall $(echo "$user + $sys" | bc)" >>"$table"
}

# Keeps cargo's per-crate HTML report of the step just run under the step's name.
keep_report() {
    local html
    html=$(ls -t "$CARGO_TARGET_DIR"/cargo-timings/cargo-timing-*.html 2>/dev/null | head -1 || true)
    [ -n "$html" ] && cp "$html" "$dir/reports/$1.html"
    return 0
}

for s in $steps; do
    case $s in
    fetch) step fetch "$CARGO" fetch --locked ;;
    web-ci) step web-ci bash -c 'cd web && npm ci --no-audit --no-fund' ;;
    web-build) step web-build bash -c 'cd web && npm run build' ;;
    release)
        step release "$CARGO" build --release --locked -p braid-server --timings
        keep_report release
        ;;
    debug)
        step debug "$CARGO" build --locked --workspace --all-targets --timings
        keep_report debug
        ;;
    *)
        echo "build-timings: unknown step $s (fetch web-ci web-build release debug)" >&2
        exit 1
        ;;
    esac
done

echo
echo "clean build on $(nproc) cores, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %10s %14s\n' step "wall s" "CPU s (u+s)"
while read -r name wall cpu; do
    printf '%-10s %10.1f %14.1f\n' "$name" "$wall" "$cpu"
done <"$table"
echo "cargo's per-crate reports: $dir/reports/*.html"
