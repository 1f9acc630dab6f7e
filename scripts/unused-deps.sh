#!/usr/bin/env bash
# Fails when a crate of the workspace declares a dependency it does not use (cargo-machete, from
# crates.io, installed on first use). The Cargo projects under tests/fixtures are data for the
# project-structure tests, not crates of Braid, so their findings are left out. Prints one line.
set -euo pipefail
cd "$(dirname "$0")/.."
MACHETE_VERSION=0.9.2
if ! cargo machete --version 2>/dev/null | grep -q "$MACHETE_VERSION"; then
    cargo install --quiet --locked cargo-machete --version "$MACHETE_VERSION"
fi
report=$(cargo machete --skip-target-dir 2>/dev/null || true)
# Sections look like `name -- ./path/Cargo.toml:` followed by tab-indented dependency names.
unused=$(awk '
    /^[^\t].* -- .*Cargo\.toml:$/ { keep = ($0 !~ /\/tests\/fixtures\//); crate = $1; next }
    /^\t/ && keep { sub(/^\t/, ""); print crate ": " $0 }
    /^[^\t]/ { keep = 0 }
' <<<"$report")
if [ -n "$unused" ]; then
    echo "unused dependencies:"
    echo "$unused"
    echo "unused dependencies: $(wc -l <<<"$unused") found (remove them, or list a false positive under [package.metadata.cargo-machete] ignored)"
    exit 1
fi
echo "unused dependencies: none"
