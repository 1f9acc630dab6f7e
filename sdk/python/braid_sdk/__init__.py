"""Braid's Python SDK: the client generated from the server's OpenAPI document (`braid_sdk._api`,
made by openapi-python-client; scripts/clients.sh checks it is current) and a thin layer for
what agent code does: contexts, sends that are safe to retry (an `Idempotency-Key` made for
each), an event stream that reconnects by itself with `Last-Event-ID`, approvals, branches,
merges and workflows.

    from braid_sdk import Braid
    braid = Braid("http://127.0.0.1:8787")
    ctx = braid.create_context(title="demo")
    sent = braid.send(ctx.id, "Hello?")
    turn = braid.wait_turn(ctx.id, sent.turn_id)
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import httpx
import httpx_sse

from ._api import AuthenticatedClient, Client
from ._api.api.default import (
    activate_branch,
    approve,
    create_branch,
    create_context,
    delete_context,
    get_context,
    get_message,
    get_state,
    get_turn,
    interrupt,
    list_branches,
    list_contexts,
    list_messages,
    list_workflows,
    cancel_workflow,
    merge_branch,
    pause_workflow,
    resume,
    resume_workflow,
    run_workflow,
    send_message,
)
from ._api.models import (
    ApiError,
    ApprovalDecision,
    ApprovalRequest,
    ApprovalResponse,
    BranchInfo,
    BranchList,
    ContentDelta,
    ContentFinal,
    ContextList,
    ContextSummary,
    ContextUpdate,
    CreateBranchRequest,
    CreateContextRequest,
    Decision,
    ErrorEvent,
    MergeOutcome,
    MergeRequest,
    MergeStrategyName,
    MessageList,
    ResumeResponse,
    RunWorkflowRequest,
    RunWorkflowRequestParameters,
    SendMessageRequest,
    SendMessageResponse,
    StateResponse,
    TextPayload,
    TurnCompleted,
    TurnStatus,
    TurnView,
    WorkflowList,
    WorkflowRunResponse,
)
from ._api.types import UNSET, Response

__all__ = ["Braid", "BraidError", "Event", "RESTING_STATES"]

#: The states in which a context waits for nobody but a person (or a new message).
RESTING_STATES = frozenset({"idle", "failed", "paused", "awaiting_tool_approval", "awaiting_user_answer"})

_EVENT_MODELS = {
    "context_update": ContextUpdate,
    "content_delta": ContentDelta,
    "content_final": ContentFinal,
    "error": ErrorEvent,
    "turn_completed": TurnCompleted,
}


class BraidError(Exception):
    """The server's `{error: {code, message, field?}}` with the HTTP status."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None) -> None:
        super().__init__(f"{status} {code}: {message}" + (f" (field {field})" if field else ""))
        self.status = status
        self.code = code
        self.message = message
        self.field = field


@dataclass(frozen=True)
class Event:
    """One event of a context's stream: its log sequence (`id`), its name and its payload
    parsed into the generated model of that event (a dict for a name this SDK does not know)."""

    id: int | None
    name: str
    data: Any


class Braid:
    """A Braid server. `token` is BRAID_API_TOKEN when the server has one."""

    def __init__(self, base_url: str = "http://127.0.0.1:8787", token: str | None = None, timeout: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self._token = token
        self._timeout = timeout
        # Without a token the server asks for none; the generated functions take either client.
        self.client: Any = (
            AuthenticatedClient(base_url=self.base_url, token=token, timeout=httpx.Timeout(timeout))
            if token
            else Client(base_url=self.base_url, timeout=httpx.Timeout(timeout))
        )

    # Contexts.

    def create_context(self, title: str | None = None, config: dict[str, Any] | None = None,
                       idempotency_key: str | None = None) -> ContextSummary:
        """Creates a context (`config` as `ContextConfigInput`'s JSON: every field has a default and may be left out)."""
        body = CreateContextRequest.from_dict({k: v for k, v in {"title": title, "config": config}.items() if v is not None})
        return _answer(create_context.sync_detailed(client=self.client, body=body, idempotency_key=_key(idempotency_key)))

    def list_contexts(self, limit: int | None = None, before: UUID | str | None = None) -> ContextList:
        """Contexts, most recently changed first; pass the answer's `next_before` as `before` for the next page."""
        return _answer(list_contexts.sync_detailed(client=self.client, limit=_opt(limit), before=_opt(_uuid(before))))

    def get_context(self, context: UUID | str) -> ContextSummary:
        """One context."""
        return _answer(get_context.sync_detailed(_uuid(context), client=self.client))

    def delete_context(self, context: UUID | str) -> None:
        """Deletes a context and everything it holds."""
        _answer(delete_context.sync_detailed(_uuid(context), client=self.client), empty=True)

    def state(self, context: UUID | str) -> StateResponse:
        """What the context is doing."""
        return _answer(get_state.sync_detailed(_uuid(context), client=self.client))

    # Messages.

    def send(self, context: UUID | str, text: str, idempotency_key: str | None = None) -> SendMessageResponse:
        """Sends text to the context's active branch. A key is made when none is given, so the
        SDK's own retry of a request whose answer was lost is answered the first answer."""
        body = SendMessageRequest(payload=TextPayload(text=text, type_="text"))
        key = idempotency_key or str(uuid.uuid4())
        for attempt in range(3):
            try:
                return _answer(send_message.sync_detailed(_uuid(context), client=self.client, body=body, idempotency_key=key))
            except (httpx.TransportError, _StillRunning):
                if attempt == 2:
                    raise
                time.sleep(0.2 * (attempt + 1))
        raise AssertionError("unreachable")

    def messages(self, context: UUID | str, branch: str | None = None, after: UUID | str | None = None,
                 limit: int | None = None, before: UUID | str | None = None) -> MessageList:
        """A branch's messages (the active one by default), oldest first; page forward with
        `after=next_after`, or back from `before` (the newest messages before it) with
        `before=next_before`."""
        return _answer(list_messages.sync_detailed(_uuid(context), client=self.client, branch=_opt(branch),
                                                   after=_opt(_uuid(after)), before=_opt(_uuid(before)),
                                                   limit=_opt(limit)))

    def message(self, context: UUID | str, message: UUID | str) -> Any:
        """One message."""
        return _answer(get_message.sync_detailed(_uuid(context), _uuid(message), client=self.client))

    # Turns.

    def turn(self, context: UUID | str, turn_id: UUID | str) -> TurnView:
        """Where a turn is: `queued`, `running`, or `completed` with its `outcome`."""
        return _answer(get_turn.sync_detailed(_uuid(context), _uuid(turn_id), client=self.client))

    def wait_turn(self, context: UUID | str, turn_id: UUID | str, timeout: float = 60.0,
                  poll: float = 0.05) -> TurnView:
        """Waits until the turn `turn_id` (a send's answer names it) is over, and answers how it
        ended: `outcome` is `answered`, `failed`, `paused`, `interrupted`, `awaiting_approval`
        or `awaiting_answer`. A queued send's turn is waited for too."""
        deadline = time.monotonic() + timeout
        while True:
            turn = self.turn(context, turn_id)
            if turn.status == TurnStatus.COMPLETED:
                return turn
            if time.monotonic() > deadline:
                raise TimeoutError(f"turn {turn_id} still {turn.status.value} after {timeout} s")
            time.sleep(poll)

    def wait_idle(self, context: UUID | str, timeout: float = 60.0) -> StateResponse:
        """Polls until the context rests (idle, failed, paused, or waiting for a person)."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.state(context)
            if state.state.type_ in RESTING_STATES:
                return state
            if time.monotonic() > deadline:
                raise TimeoutError(f"context {context} still {state.state.type_} after {timeout} s")
            time.sleep(0.05)

    # Events.

    def stream(self, context: UUID | str, after: int | None = None, reconnect_delay: float = 0.5,
               include_heartbeats: bool = False) -> Iterator[Event]:
        """The context's events, from the one after sequence `after` (everything logged with 0;
        live from now when None). A dropped connection is reconnected with `Last-Event-ID`, so
        no logged event is missed or repeated. Runs until the caller stops iterating."""
        last = after
        url = f"{self.base_url}/v1/contexts/{_uuid(context)}/events"
        headers = {"Authorization": f"Bearer {self._token}"} if self._token else {}
        timeout = httpx.Timeout(self._timeout, read=None)
        with httpx.Client(timeout=timeout) as http:
            while True:
                sent = dict(headers)
                if last is not None:
                    sent["Last-Event-ID"] = str(last)
                try:
                    with httpx_sse.connect_sse(http, "GET", url, headers=sent) as source:
                        if source.response.status_code != 200:
                            source.response.read()
                            raise _error_of(source.response.status_code, source.response.json())
                        for sse in source.iter_sse():
                            if sse.id:
                                last = int(sse.id)
                            if sse.event == "heartbeat" and not include_heartbeats:
                                continue
                            yield _event(sse)
                except (httpx.TransportError, httpx_sse.SSEError):
                    pass
                time.sleep(reconnect_delay)

    # Approvals.

    def approve(self, context: UUID | str, *call_ids: str, for_session: bool = False) -> UUID | None:
        """Approves pending tool calls (and the tool for the rest of the session with `for_session`).
        Answers the turn the decisions start, to `wait_turn` for, once no call waits any more
        (None while others still wait)."""
        decision = Decision.APPROVE_FOR_SESSION if for_session else Decision.APPROVE
        return self._decide(context, [ApprovalDecision(call_id=c, decision=decision) for c in call_ids])

    def deny(self, context: UUID | str, *call_ids: str, reason: str | None = None) -> UUID | None:
        """Denies pending tool calls; the model is told `reason`. Answers the turn that goes on,
        as `approve` does."""
        return self._decide(
            context, [ApprovalDecision(call_id=c, decision=Decision.DENY, reason=_opt(reason)) for c in call_ids])

    def _decide(self, context: UUID | str, decisions: list[ApprovalDecision]) -> UUID | None:
        answered: ApprovalResponse = _answer(approve.sync_detailed(
            _uuid(context), client=self.client, body=ApprovalRequest(decisions=decisions),
            idempotency_key=str(uuid.uuid4())))
        return answered.turn_id if isinstance(answered.turn_id, UUID) else None

    def interrupt(self, context: UUID | str) -> None:
        """Stops the loop after the running tool (a streaming answer stops at once); the turn
        ends `interrupted` and the context waits, paused, for a `resume` or a new message."""
        _answer(interrupt.sync_detailed(_uuid(context), client=self.client), empty=True)

    def resume(self, context: UUID | str) -> UUID:
        """Continues a paused or failed loop; answers the turn it runs as, to `wait_turn` for."""
        answered: ResumeResponse = _answer(resume.sync_detailed(_uuid(context), client=self.client))
        return answered.turn_id

    # Branches.

    def branches(self, context: UUID | str) -> BranchList:
        """The branches and the active one."""
        return _answer(list_branches.sync_detailed(_uuid(context), client=self.client))

    def create_branch(self, context: UUID | str, name: str, from_message: UUID | str | None = None,
                      idempotency_key: str | None = None) -> BranchInfo:
        """A new branch from the active one (up to `from_message` when given)."""
        body = CreateBranchRequest(name=name, from_message=_opt(_uuid(from_message)))
        return _answer(create_branch.sync_detailed(_uuid(context), client=self.client, body=body,
                                                   idempotency_key=_key(idempotency_key)))

    def activate_branch(self, context: UUID | str, name: str) -> None:
        """Makes `name` the branch new messages go to."""
        _answer(activate_branch.sync_detailed(_uuid(context), name, client=self.client), empty=True)

    def merge(self, context: UUID | str, source: str, target: str | None = None, strategy: str = "append",
              dry_run: bool = False, idempotency_key: str | None = None) -> MergeOutcome:
        """Merges branch `source` into `target` (the active branch by default) with `append` or
        `rebase` (`cherry_pick` needs its messages: build a `MergeRequest` and call
        `merge_branch` of `braid_sdk._api.api.default`)."""
        fields = {"target": target, "strategy": {"type": MergeStrategyName(strategy).value}, "dry_run": dry_run}
        body = MergeRequest.from_dict({k: v for k, v in fields.items() if v is not None})
        return _answer(merge_branch.sync_detailed(_uuid(context), source, client=self.client, body=body,
                                                  idempotency_key=_key(idempotency_key)))

    # Workflows.

    def workflows(self, context: UUID | str | None = None) -> WorkflowList:
        """Workflow definitions (the context's workspace's too, when given)."""
        return _answer(list_workflows.sync_detailed(client=self.client, context=_opt(_uuid(context))))

    def run_workflow(self, context: UUID | str, name: str, parameters: dict[str, Any] | None = None,
                     idempotency_key: str | None = None) -> WorkflowRunResponse:
        """Starts a workflow run. The answer names the run (`execution_id`) and the turn it goes
        as (`turn_id`, to `wait_turn` for, and `stream_after`): the turn ends `answered` when the
        run completes, `failed`, `interrupted` when it is cancelled, `paused`, or
        `awaiting_approval` at an approval step (`resume_workflow` approves, as a new turn)."""
        body = RunWorkflowRequest(parameters=RunWorkflowRequestParameters.from_dict(parameters or {}))
        return _answer(run_workflow.sync_detailed(_uuid(context), name, client=self.client, body=body,
                                                  idempotency_key=_key(idempotency_key)))

    def resume_workflow(self, context: UUID | str, execution_id: str) -> ResumeResponse:
        """Resumes a paused run from its current step (also past an approval step); answers the
        new turn it goes on as (`turn_id`, to `wait_turn` for, and `stream_after`)."""
        return _answer(resume_workflow.sync_detailed(_uuid(context), execution_id, client=self.client))

    def pause_workflow(self, context: UUID | str, execution_id: str) -> None:
        """Pauses a run when its running step ends (its turn then ends `paused`)."""
        _answer(pause_workflow.sync_detailed(_uuid(context), execution_id, client=self.client), empty=True)

    def cancel_workflow(self, context: UUID | str, execution_id: str) -> None:
        """Cancels a run (also: declines an approval step); a running run's turn ends
        `interrupted` once its step ends."""
        _answer(cancel_workflow.sync_detailed(_uuid(context), execution_id, client=self.client), empty=True)


class _StillRunning(Exception):
    """The first request with this key is still running (409 on a retry): wait and ask again."""


def _key(given: str | None) -> str:
    return given or str(uuid.uuid4())


def _opt(value: Any) -> Any:
    return UNSET if value is None else value


def _uuid(value: UUID | str | None) -> Any:
    if value is None or isinstance(value, UUID):
        return value
    return UUID(str(value))


def _error_of(status: int, body: Any) -> BraidError:
    error = body.get("error", {}) if isinstance(body, dict) else {}
    return BraidError(status, error.get("code", "unknown"), error.get("message", str(body)), error.get("field"))


def _answer(response: Response[Any], empty: bool = False) -> Any:
    """The parsed answer, or the server's error raised."""
    status = int(response.status_code)
    if status >= 400 or isinstance(response.parsed, ApiError):
        parsed = response.parsed
        if isinstance(parsed, ApiError):
            error = parsed.error
            field = error.field if isinstance(error.field, str) else None
            failure = BraidError(status, error.code.value, error.message, field)
        else:
            failure = BraidError(status, "unknown", response.content.decode(errors="replace"))
        if status == 409 and failure.field == "Idempotency-Key":
            raise _StillRunning(str(failure))
        raise failure
    return None if empty else response.parsed


def _event(sse: httpx_sse.ServerSentEvent) -> Event:
    event_id = int(sse.id) if sse.id else None
    try:
        data = sse.json()
    except ValueError:
        data = sse.data
    model = _EVENT_MODELS.get(sse.event)
    if model is not None and isinstance(data, dict):
        return Event(event_id, sse.event, model.from_dict({**data, "type": sse.event}))
    return Event(event_id, sse.event, data)
