"""The client openapi-python-client generates from the served document, driving a real
`braid serve` (with the mock model): create a context, send, read the answer, list messages.
Run by scripts/clients.sh with the generated package `braid_api` on PYTHONPATH and BRAID_URL."""

import os
import sys
import time
import uuid

from braid_api import AuthenticatedClient, Client
from braid_api.api.default import create_context, get_state, list_messages, send_message
from braid_api.models import (
    ApiError,
    ContextSummary,
    CreateContextRequest,
    MessageList,
    SendMessageRequest,
    SendMessageResponse,
    TextPayload,
)

RESTING = {"idle", "failed", "paused", "awaiting_tool_approval", "awaiting_user_answer"}


def main() -> None:
    token = os.environ.get("BRAID_API_TOKEN")
    # Without a token the server asks for none; the generated functions take either client.
    client = (
        AuthenticatedClient(base_url=os.environ["BRAID_URL"], token=token)
        if token
        else Client(base_url=os.environ["BRAID_URL"])
    )
    created = create_context.sync(client=client, body=CreateContextRequest(title="generated client"))
    assert isinstance(created, ContextSummary), created
    sent = send_message.sync(
        created.id,
        client=client,
        body=SendMessageRequest(payload=TextPayload(text="Hello?", type_="text")),
        idempotency_key=str(uuid.uuid4()),
    )
    assert isinstance(sent, SendMessageResponse), sent
    deadline = time.monotonic() + 30
    while True:
        state = get_state.sync(created.id, client=client)
        assert not isinstance(state, ApiError) and state is not None, state
        if state.state.type_ in RESTING:
            break
        assert time.monotonic() < deadline, f"no rest: {state}"
        time.sleep(0.05)
    assert state.state.type_ == "idle", state
    listed = list_messages.sync(created.id, client=client)
    assert isinstance(listed, MessageList), listed
    kinds = [(m.role.value, m.kind) for m in listed.messages]
    assert [k for k in kinds if k[1] == "text"] == [("user", "text"), ("assistant", "text")], kinds
    answer = listed.messages[-1]
    text = "".join(part.text for part in answer.data.parts)
    assert text == "Hello from the mock.", text
    assert listed.messages[0].id == sent.message_id
    print(f"clients: the generated Python client created, sent, read the answer ({text!r}) and listed {len(listed.messages)} messages")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as failure:
        print(f"clients: generated client smoke test failed: {failure}", file=sys.stderr)
        raise
