"""A stdio MCP server that speaks only protocol 2026-07-28: it refuses `initialize` and answers
`server/discover`, so a client must negotiate with discovery. Plain JSON-RPC, no SDK, for the
braid-mcp test of protocol version negotiation. Its tool `whoami` says which protocol version
the call's `_meta` carried; `confirm` asks for input first (a multi-round call, SEP-2322: an
elicitation and an opaque request state) and says what came back; `sample` asks for sampling."""

import json
import sys

VERSION = "2026-07-28"


def answer(request_id, result=None, error=None):
    message = {"jsonrpc": "2.0", "id": request_id}
    if error is not None:
        message["error"] = error
    else:
        message["result"] = result
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    request = json.loads(line)
    method = request.get("method")
    request_id = request.get("id")
    if request_id is None:
        continue  # a notification
    if method == "initialize":
        answer(request_id, error={"code": -32601, "message": "Method not found: initialize"})
    elif method == "server/discover":
        answer(
            request_id,
            {
                "resultType": "complete",
                "supportedVersions": [VERSION],
                "capabilities": {"tools": {}},
                "ttlMs": 0,
                "cacheScope": "public",
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "discover-only", "version": "1.0.0"}},
            },
        )
    elif method == "tools/list":
        answer(
            request_id,
            {
                "resultType": "complete",
                "tools": [
                    {
                        "name": "whoami",
                        "description": "Says which protocol version the call carried",
                        "inputSchema": {"type": "object", "properties": {}},
                    },
                    {
                        "name": "confirm",
                        "description": "Asks for a confirmation before answering",
                        "inputSchema": {"type": "object", "properties": {}},
                    },
                    {
                        "name": "sample",
                        "description": "Asks the client to sample a model",
                        "inputSchema": {"type": "object", "properties": {}},
                    },
                ],
            },
        )
    elif method == "tools/call" and request["params"].get("name") == "confirm":
        params = request["params"]
        responses = params.get("inputResponses")
        if responses is None:
            ask = {
                "method": "elicitation/create",
                "params": {
                    "message": "Go ahead?",
                    "requestedSchema": {
                        "type": "object",
                        "properties": {"go": {"type": "boolean", "default": True}},
                    },
                },
            }
            answer(
                request_id,
                {"resultType": "input_required", "inputRequests": {"ok": ask}, "requestState": "s-1|opaque"},
            )
        else:
            action = responses.get("ok", {}).get("action")
            content = json.dumps(responses.get("ok", {}).get("content"), sort_keys=True)
            state = params.get("requestState")
            text = f"answered {action} {content} with state {state}"
            answer(request_id, {"resultType": "complete", "content": [{"type": "text", "text": text}]})
    elif method == "tools/call" and request["params"].get("name") == "sample":
        ask = {
            "method": "sampling/createMessage",
            "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 10},
        }
        answer(request_id, {"resultType": "input_required", "inputRequests": {"s": ask}})
    elif method == "tools/call":
        meta = (request.get("params") or {}).get("_meta") or {}
        spoken = meta.get("io.modelcontextprotocol/protocolVersion", "none")
        answer(
            request_id,
            {"resultType": "complete", "content": [{"type": "text", "text": f"spoke {spoken}"}]},
        )
    elif method == "ping":
        answer(request_id, {})
    else:
        answer(request_id, error={"code": -32601, "message": f"Method not found: {method}"})
