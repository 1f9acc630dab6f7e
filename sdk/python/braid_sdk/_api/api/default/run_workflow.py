from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.run_workflow_request import RunWorkflowRequest
from ...models.workflow_run_response import WorkflowRunResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    name: str,
    *,
    body: RunWorkflowRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/contexts/{id}/workflows/{name}/run".format(
            id=quote(str(id), safe=""),
            name=quote(str(name), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | WorkflowRunResponse:
    if response.status_code == 202:
        response_202 = WorkflowRunResponse.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = ApiError.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ApiError.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = ApiError.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ApiError.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = ApiError.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = ApiError.from_dict(response.json())

        return response_422

    response_default = ApiError.from_dict(response.json())

    return response_default


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ApiError | WorkflowRunResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    name: str,
    *,
    client: AuthenticatedClient,
    body: RunWorkflowRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ApiError | WorkflowRunResponse]:
    """Starts a workflow run with `{ parameters }` (checked against its schema: 422 names the parameter);
    answers 202 once its `workflow_execution` message is stored. The run is a turn of its own: the 202
    names its `turn_id` (and `stream_after` to stream it from), every event of the run carries it, and
    one `turn_completed` ends it when the run completes (`answered`), fails (`failed`), is cancelled
    (`interrupted`), pauses (`paused`, or `interrupted` after an interrupt) or waits at an approval step
    or a tool call's approval (`awaiting_approval`). A run started by a send (a `workflow` payload, as
    the `/` menu sends) is that send's turn; a run the model starts with a `workflow__<name>` call goes
    in the model's turn, which goes on after it. An `Idempotency-Key` replay answers the same run and
    turn.

    Args:
        id (UUID): Identifies one context (conversation).
        name (str): The workflow's name.
        idempotency_key (str | Unset):
        body (RunWorkflowRequest): `POST /v1/contexts/{id}/workflows/{name}/run`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | WorkflowRunResponse]
    """

    kwargs = _get_kwargs(
        id=id,
        name=name,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    name: str,
    *,
    client: AuthenticatedClient,
    body: RunWorkflowRequest,
    idempotency_key: str | Unset = UNSET,
) -> ApiError | WorkflowRunResponse | None:
    """Starts a workflow run with `{ parameters }` (checked against its schema: 422 names the parameter);
    answers 202 once its `workflow_execution` message is stored. The run is a turn of its own: the 202
    names its `turn_id` (and `stream_after` to stream it from), every event of the run carries it, and
    one `turn_completed` ends it when the run completes (`answered`), fails (`failed`), is cancelled
    (`interrupted`), pauses (`paused`, or `interrupted` after an interrupt) or waits at an approval step
    or a tool call's approval (`awaiting_approval`). A run started by a send (a `workflow` payload, as
    the `/` menu sends) is that send's turn; a run the model starts with a `workflow__<name>` call goes
    in the model's turn, which goes on after it. An `Idempotency-Key` replay answers the same run and
    turn.

    Args:
        id (UUID): Identifies one context (conversation).
        name (str): The workflow's name.
        idempotency_key (str | Unset):
        body (RunWorkflowRequest): `POST /v1/contexts/{id}/workflows/{name}/run`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | WorkflowRunResponse
    """

    return sync_detailed(
        id=id,
        name=name,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    name: str,
    *,
    client: AuthenticatedClient,
    body: RunWorkflowRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ApiError | WorkflowRunResponse]:
    """Starts a workflow run with `{ parameters }` (checked against its schema: 422 names the parameter);
    answers 202 once its `workflow_execution` message is stored. The run is a turn of its own: the 202
    names its `turn_id` (and `stream_after` to stream it from), every event of the run carries it, and
    one `turn_completed` ends it when the run completes (`answered`), fails (`failed`), is cancelled
    (`interrupted`), pauses (`paused`, or `interrupted` after an interrupt) or waits at an approval step
    or a tool call's approval (`awaiting_approval`). A run started by a send (a `workflow` payload, as
    the `/` menu sends) is that send's turn; a run the model starts with a `workflow__<name>` call goes
    in the model's turn, which goes on after it. An `Idempotency-Key` replay answers the same run and
    turn.

    Args:
        id (UUID): Identifies one context (conversation).
        name (str): The workflow's name.
        idempotency_key (str | Unset):
        body (RunWorkflowRequest): `POST /v1/contexts/{id}/workflows/{name}/run`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | WorkflowRunResponse]
    """

    kwargs = _get_kwargs(
        id=id,
        name=name,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    name: str,
    *,
    client: AuthenticatedClient,
    body: RunWorkflowRequest,
    idempotency_key: str | Unset = UNSET,
) -> ApiError | WorkflowRunResponse | None:
    """Starts a workflow run with `{ parameters }` (checked against its schema: 422 names the parameter);
    answers 202 once its `workflow_execution` message is stored. The run is a turn of its own: the 202
    names its `turn_id` (and `stream_after` to stream it from), every event of the run carries it, and
    one `turn_completed` ends it when the run completes (`answered`), fails (`failed`), is cancelled
    (`interrupted`), pauses (`paused`, or `interrupted` after an interrupt) or waits at an approval step
    or a tool call's approval (`awaiting_approval`). A run started by a send (a `workflow` payload, as
    the `/` menu sends) is that send's turn; a run the model starts with a `workflow__<name>` call goes
    in the model's turn, which goes on after it. An `Idempotency-Key` replay answers the same run and
    turn.

    Args:
        id (UUID): Identifies one context (conversation).
        name (str): The workflow's name.
        idempotency_key (str | Unset):
        body (RunWorkflowRequest): `POST /v1/contexts/{id}/workflows/{name}/run`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | WorkflowRunResponse
    """

    return (
        await asyncio_detailed(
            id=id,
            name=name,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
