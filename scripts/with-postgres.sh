#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL server: a new cluster in a temporary directory, on a
# free loopback port, trust auth. Exports BRAID_TEST_POSTGRES_URL for the command and removes the
# cluster afterwards, whatever the command's outcome.
#   scripts/with-postgres.sh cargo test --workspace
set -euo pipefail

bindir=""
for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
  if [ -x "$candidate/initdb" ]; then bindir="$candidate"; break; fi
done
if [ -z "$bindir" ]; then
  bindir="$(dirname "$(command -v initdb)")"
fi

dir="$(mktemp -d /tmp/braid-pg.XXXXXX)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
# PostgreSQL refuses to run as root; use the postgres user when we are root.
run_as=()
if [ "$(id -u)" -eq 0 ]; then
  chown -R postgres:postgres "$dir" 2>/dev/null || true
  run_as=(runuser -u postgres --)
fi

cleanup() {
  "${run_as[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT

"${run_as[@]}" "$bindir/initdb" -D "$dir/data" -U braid --auth=trust -E UTF8 >/dev/null
"${run_as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/log" -w -o "-h 127.0.0.1 -p $port -k $dir -c fsync=off" start >/dev/null

export BRAID_TEST_POSTGRES_URL="postgres://braid@127.0.0.1:$port/postgres"
export BRAID_REQUIRE_POSTGRES=1
echo "with-postgres: PostgreSQL on 127.0.0.1:$port" >&2
"$@"
