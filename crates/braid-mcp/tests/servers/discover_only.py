"""A stdio MCP server that speaks only protocol 2026-07-28: it refuses `initialize` and answers
`server/discover`, so a client must negotiate with discovery. Plain JSON-RPC, no SDK, for the
braid-mcp test of protocol version negotiation. Its one tool, `whoami`, says which protocol
version the call's `_meta` carried."""

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
                    }
                ],
            },
        )
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
