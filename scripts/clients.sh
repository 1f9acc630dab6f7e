#!/usr/bin/env bash
# Generated clients against a real server (issue 45): starts braid-mock-llm and `braid serve`,
# reads the OpenAPI document the server serves, and
#   1. generates a Python client with openapi-python-client (pinned in sdk/python/requirements.txt,
#      installed into sdk/python/.venv); any warning fails. The result must equal the copy the
#      Python SDK ships (sdk/python/braid_sdk/_api; BRAID_UPDATE_CLIENTS=1 rewrites it);
#   2. drives the server through that generated client: create a context, send, read the answer,
#      list the messages (sdk/python/tests/generated_smoke.py);
#   3. runs the Python SDK's tests and its README example against the same server;
#   4. generates TypeScript types with openapi-typescript (sdk/typescript/package-lock.json),
#      type-checks a client over them (openapi-fetch) and drives the server through it;
#   5. runs the TypeScript SDK's checks (sdk/typescript/src/check.ts: a turn waited for, the
#      stream across a dropped connection, paging) and its README example against the server.
# Needs target/debug/braid and target/debug/braid-mock-llm (`cargo build -p braid-server -p
# braid-testkit`). Prints one line per step; logs are in target/clients/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
# A relative target directory (the Makefile passes `target`) is the repository's: the steps
# below run from other directories.
case "$target" in /*) ;; *) target=$root/$target ;; esac
out=$target/clients
sdk=$root/sdk/python
braid=$target/debug/braid
mock_bin=$target/debug/braid-mock-llm
for bin in "$braid" "$mock_bin"; do
    [ -x "$bin" ] || { echo "clients: $bin is missing: cargo build -p braid-server -p braid-testkit" >&2; exit 1; }
done
rm -rf "$out"
mkdir -p "$out"

# The venv: every package pinned, nothing else resolved. Quick when already installed.
if [ ! -x "$sdk/.venv/bin/openapi-python-client" ] || [ "$sdk/requirements.txt" -nt "$sdk/.venv/.install-stamp" ]; then
    python3 -m venv "$sdk/.venv"
    "$sdk/.venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$sdk/requirements.txt"
    touch "$sdk/.venv/.install-stamp"
fi
python=$sdk/.venv/bin/python

pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap cleanup EXIT

# The mock answers every request with one short text (the smoke tests and examples send many).
"$python" - "$out/mock-script.json" <<'PY'
import json, sys
reply = {"type": "stream", "chunks": [
    {"type": "text", "text": "Hello from "}, {"type": "text", "text": "the mock."},
    {"type": "usage", "prompt_tokens": 100, "completion_tokens": 10},
    {"type": "finish", "reason": "stop"}]}
json.dump({"discovery": {"server": "llama_cpp", "model": "mock", "context_window": 32768},
           "responses": [reply] * 200}, open(sys.argv[1], "w"))
PY
"$mock_bin" --script "$out/mock-script.json" --port 0 >"$out/mock.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 150); do
    mock_port=$(head -n1 "$out/mock.log" 2>/dev/null | grep -E '^[0-9]+$' || true)
    [ -n "$mock_port" ] && break
    sleep 0.1
done
[ -n "${mock_port:-}" ] || { echo "clients: braid-mock-llm did not start:" >&2; cat "$out/mock.log" >&2; exit 1; }

free_port() { "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=$(free_port)
# The SDK's stream test reaches the server through a proxy on this port, which it cuts.
proxy_port=$(free_port)
mkdir -p "$out/data" "$out/workspace"
(cd "$out" && BRAID_LLM_PROVIDER=openai BRAID_LLM_BASE_URL="http://127.0.0.1:$mock_port/v1" BRAID_MODEL=mock \
    exec "$braid" serve --bind "127.0.0.1:$port" --data-dir "$out/data" --titles off \
    --workspace-root "$out/workspace" --web-dir "$out/no-web" --allowed-host "127.0.0.1:$proxy_port") >"$out/braid.log" 2>&1 &
pids+=($!)
url=http://127.0.0.1:$port
for _ in $(seq 1 200); do
    curl -fsS "$url/health" >/dev/null 2>&1 && break
    sleep 0.1
done
curl -fsS "$url/health" >/dev/null || { echo "clients: braid serve did not start:" >&2; cat "$out/braid.log" >&2; exit 1; }
curl -fsS "$url/openapi.json" -o "$out/openapi.json"

# 1. Generation, without a warning.
(cd "$out" && PATH="$sdk/.venv/bin:$PATH" openapi-python-client generate \
    --path "$out/openapi.json" --output-path "$out/python/braid_api" --meta none) >"$out/generate.log" 2>&1 || {
    echo "clients: openapi-python-client failed:" >&2; cat "$out/generate.log" >&2; exit 1; }
if grep -qiE 'warning|unable to|skipping|will not be generated' "$out/generate.log"; then
    echo "clients: openapi-python-client warned:" >&2; cat "$out/generate.log" >&2; exit 1
fi
# The formatter's cache is not part of the client.
rm -rf "$out/python/braid_api/.ruff_cache"
shipped=$sdk/braid_sdk/_api
if [ "${BRAID_UPDATE_CLIENTS:-}" = 1 ]; then
    rm -rf "$shipped" && cp -a "$out/python/braid_api" "$shipped"
    find "$shipped" -name __pycache__ -prune -exec rm -rf {} +
elif ! diff -r -x __pycache__ "$out/python/braid_api" "$shipped" >"$out/stale.diff"; then
    echo "clients: $shipped is stale (see $out/stale.diff): run BRAID_UPDATE_CLIENTS=1 scripts/clients.sh" >&2
    exit 1
fi
echo "clients: openapi-python-client generated $(find "$out/python/braid_api/models" -name '*.py' | wc -l) models without a warning"

# 2. The generated client against the server.
PYTHONPATH="$out/python" BRAID_URL=$url "$python" "$sdk/tests/generated_smoke.py"

# 3. The SDK's tests and README example.
PYTHONPATH="$sdk" BRAID_URL=$url BRAID_PROXY_PORT=$proxy_port "$python" -m unittest discover -s "$sdk/tests" -p 'test_*.py' 2>"$out/sdk-tests.log" || {
    cat "$out/sdk-tests.log" >&2; exit 1; }
echo "clients: Python SDK tests pass"
"$python" - "$sdk/README.md" >"$out/readme_example.py" <<'PY'
import re, sys
blocks = re.findall(r"```python\n(.*?)```", open(sys.argv[1]).read(), re.S)
print(blocks[0])
PY
PYTHONPATH="$sdk" BRAID_URL=$url "$python" "$out/readme_example.py" >"$out/readme_example.log"
echo "clients: the Python SDK's README example ran: $(tail -n1 "$out/readme_example.log")"

# 4. TypeScript types from the served document, type-checked and driven against the server.
ts=$root/sdk/typescript
if [ ! -x "$ts/node_modules/.bin/tsc" ] || [ "$ts/package-lock.json" -nt "$ts/node_modules/.install-stamp" ]; then
    (cd "$ts" && npm ci --no-audit --no-fund --loglevel=error)
    touch "$ts/node_modules/.install-stamp"
fi
mkdir -p "$ts/generated"
(cd "$ts" && node node_modules/.bin/openapi-typescript "$out/openapi.json" -o generated/api.ts) >"$out/ts-generate.log" 2>&1 || {
    cat "$out/ts-generate.log" >&2; exit 1; }
(cd "$ts" && node node_modules/.bin/tsc -p .) || { echo "clients: the TypeScript client does not type-check" >&2; exit 1; }
BRAID_URL=$url node "$ts/dist/src/smoke.js"

# 5. The TypeScript SDK's checks and README example (the proxy port is free again: the Python
# test's proxy closed with its process).
BRAID_URL=$url BRAID_PROXY_PORT=$proxy_port node "$ts/dist/src/check.js"
"$python" - "$ts/README.md" >"$ts/dist/readme_example.mjs" <<'PY'
import re, sys
blocks = re.findall(r"```js\n(.*?)```", open(sys.argv[1]).read(), re.S)
print(blocks[0].replace('"./dist/src/index.js"', '"./src/index.js"'))
PY
BRAID_URL=$url node "$ts/dist/readme_example.mjs" >"$out/ts_readme_example.log"
echo "clients: the TypeScript SDK's README example ran: $(tail -n1 "$out/ts_readme_example.log")"
