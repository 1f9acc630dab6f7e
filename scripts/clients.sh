#!/usr/bin/env bash
# Generated clients against a real server (issue 45): starts braid-mock-llm and `braid serve`,
# reads the OpenAPI document the server serves, and
#   1. generates a Python client with openapi-python-client (pinned in sdk/python/requirements.txt,
#      installed into sdk/python/.venv); any warning fails. The result must equal the copy the
#      Python SDK ships (sdk/python/braid_sdk/_api; BRAID_UPDATE_CLIENTS=1 rewrites it);
#   2. drives the server through that generated client: create a context, send, read the answer,
#      list the messages (sdk/python/tests/generated_smoke.py);
#   3. runs the Python SDK's tests and its README example against the same server, and its
#      approval, denial, resume and interrupt test (sdk/python/tests/turn_control.py) against a
#      second server whose mock follows that test's script;
#   4. generates TypeScript types with openapi-typescript (sdk/typescript/package-lock.json),
#      type-checks a client over them (openapi-fetch) and drives the server through it;
#   5. runs the TypeScript SDK's checks (sdk/typescript/src/check.ts: a turn waited for, a
#      workflow run's turns waited for, the stream across a dropped connection, paging) and its README example against the server,
#      and its approval, denial, resume and interrupt checks (src/control.ts) against the second.
# Needs target/debug/braid and target/debug/braid-mock-llm (`cargo build --workspace
# --all-targets`, as `make clients` runs it). Prints one line per step; logs are in target/clients/.
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
    [ -x "$bin" ] || { echo "clients: $bin is missing: cargo build --workspace --all-targets" >&2; exit 1; }
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
# A second server's mock follows the script of the approval and resume tests, once per SDK, in
# the order they run (sdk/python/tests/turn_control.py, then sdk/typescript/src/control.ts): a
# `read_file` call to approve and the answer after it, one to deny and the answer after it, two
# rounds of calls (the second over a depth limit of one: the loop pauses) and the answer after
# the resume, a slow answer to interrupt.
"$python" - "$out/mock-script.json" "$out/control-script.json" <<'PY'
import json, sys
def text(*pieces, delay_ms=0):
    chunks = [{"type": "text", "text": p} for p in pieces]
    reply = {"type": "stream", "chunks": chunks + [
        {"type": "usage", "prompt_tokens": 100, "completion_tokens": 10},
        {"type": "finish", "reason": "stop"}]}
    return {**reply, "chunk_delay_ms": delay_ms} if delay_ms else reply
def call(call_id, tool, arguments):
    return {"type": "stream", "chunks": [
        {"type": "tool_call_start", "index": 0, "id": call_id, "name": tool},
        {"type": "tool_call_args", "index": 0, "delta": json.dumps(arguments)},
        {"type": "finish", "reason": "tool_calls"}]}
discovery = {"server": "llama_cpp", "model": "mock", "context_window": 32768}
json.dump({"discovery": discovery, "responses": [text("Hello from ", "the mock.")] * 200}, open(sys.argv[1], "w"))
control = [call("call_notes", "read_file", {"path": "notes.txt"}), text("The notes say hello."),
           call("call_secret", "read_file", {"path": "secret.txt"}), text("Understood."),
           call("round_1", "read_file", {"path": "notes.txt"}), call("round_2", "read_file", {"path": "notes.txt"}),
           text("Resumed where I stopped."),
           text(*[f"w{i} " for i in range(300)], delay_ms=20)]
json.dump({"discovery": discovery, "responses": control * 2}, open(sys.argv[2], "w"))
PY

free_port() { "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# The SDK's stream test reaches the server through a proxy on this port, which it cuts.
proxy_port=$(free_port)

# start_server NAME SCRIPT: a mock following SCRIPT and a `braid serve` on it, with their data,
# workspace and logs in $out/NAME; sets $started_url.
start_server() {
    local name=$1 script=$2 dir=$out/$1 mock_port="" port
    mkdir -p "$dir/data" "$dir/workspace"
    "$mock_bin" --script "$script" --port 0 >"$dir/mock.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 150); do
        mock_port=$(head -n1 "$dir/mock.log" 2>/dev/null | grep -E '^[0-9]+$' || true)
        [ -n "$mock_port" ] && break
        sleep 0.1
    done
    [ -n "$mock_port" ] || { echo "clients: braid-mock-llm did not start:" >&2; cat "$dir/mock.log" >&2; exit 1; }
    port=$(free_port)
    (cd "$dir" && BRAID_LLM_PROVIDER=openai BRAID_LLM_BASE_URL="http://127.0.0.1:$mock_port/v1" BRAID_MODEL=mock \
        exec "$braid" serve --bind "127.0.0.1:$port" --data-dir "$dir/data" --titles off \
        --workspace-root "$dir/workspace" --web-dir "$out/no-web" --allowed-host "127.0.0.1:$proxy_port") >"$dir/braid.log" 2>&1 &
    pids+=($!)
    started_url=http://127.0.0.1:$port
    for _ in $(seq 1 200); do
        curl -fsS "$started_url/health" >/dev/null 2>&1 && break
        sleep 0.1
    done
    curl -fsS "$started_url/health" >/dev/null || { echo "clients: braid serve did not start:" >&2; cat "$dir/braid.log" >&2; exit 1; }
}
start_server main "$out/mock-script.json"
url=$started_url
start_server control "$out/control-script.json"
control_url=$started_url
# The workflow the SDKs' tests run as turns: a prompt step, then an approval step.
mkdir -p "$out/main/workspace/.braid/workflows"
cat >"$out/main/workspace/.braid/workflows/greet.yaml" <<'YAML'
name: greet
parameters:
  type: object
  properties: { who: { type: string, default: "you" } }
steps:
  - name: hello
    prompt: "Say hello to {{ params.who }}"
  - name: check
    approval: "Keep the greeting for {{ params.who }}?"
YAML
# What the approval test's call reads, and what the denial test's call must not.
echo "hello from the notes" >"$out/control/workspace/notes.txt"
echo "top secret" >"$out/control/workspace/secret.txt"
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
PYTHONPATH="$sdk" BRAID_CONTROL_URL=$control_url "$python" -m unittest discover -s "$sdk/tests" -p 'turn_control.py' 2>"$out/sdk-control.log" || {
    cat "$out/sdk-control.log" >&2; exit 1; }
echo "clients: Python SDK tests pass (approve, deny and resume too)"
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
# As for the web UI (web/scripts/api-types.mjs): a field with a default may be left out of a
# request; what an answer always holds, its schema lists as required.
(cd "$ts" && node node_modules/.bin/openapi-typescript "$out/openapi.json" --default-non-nullable false -o generated/api.ts) >"$out/ts-generate.log" 2>&1 || {
    cat "$out/ts-generate.log" >&2; exit 1; }
(cd "$ts" && node node_modules/.bin/tsc -p .) || { echo "clients: the TypeScript client does not type-check" >&2; exit 1; }
BRAID_URL=$url node "$ts/dist/src/smoke.js"

# 5. The TypeScript SDK's checks and README example (the proxy port is free again: the Python
# test's proxy closed with its process).
BRAID_URL=$url BRAID_PROXY_PORT=$proxy_port node "$ts/dist/src/check.js"
BRAID_CONTROL_URL=$control_url node "$ts/dist/src/control.js"
"$python" - "$ts/README.md" >"$ts/dist/readme_example.mjs" <<'PY'
import re, sys
blocks = re.findall(r"```js\n(.*?)```", open(sys.argv[1]).read(), re.S)
print(blocks[0].replace('"./dist/src/index.js"', '"./src/index.js"'))
PY
BRAID_URL=$url node "$ts/dist/readme_example.mjs" >"$out/ts_readme_example.log"
echo "clients: the TypeScript SDK's README example ran: $(tail -n1 "$out/ts_readme_example.log")"
