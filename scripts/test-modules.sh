#!/usr/bin/env bash
# Fails when an integration test file would never run. Each crate builds its tests/*.rs as
# modules of one test binary, tests/integration.rs (`autotests = false`), so a file that root
# does not declare is silently left out. A file may instead be a test target of its own, named
# in the crate's Cargo.toml (the crash tests). Prints one line.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
files=0
for file in crates/*/tests/*.rs; do
    dir=$(dirname "$file")
    crate=$(dirname "$dir")
    name=$(basename "$file" .rs)
    [ "$name" = integration ] && continue
    files=$((files + 1))
    grep -qx "mod $name;" "$dir/integration.rs" 2>/dev/null && continue
    grep -qx "name = \"$name\"" "$crate/Cargo.toml" && continue
    missing+=("$file")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "integration tests that never run (declare them in tests/integration.rs):"
    printf '  %s\n' "${missing[@]}"
    exit 1
fi
echo "integration tests: all $files files are modules of a test binary or targets of their own"
