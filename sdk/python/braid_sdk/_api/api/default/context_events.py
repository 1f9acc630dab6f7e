from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    after: int | Unset = UNSET,
    last_event_id: int | None | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(last_event_id, Unset):
        headers["Last-Event-ID"] = last_event_id

    params: dict[str, Any] = {}

    params["after"] = after

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/contexts/{id}/events".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | str:
    if response.status_code == 200:
        response_200 = response.text
        return response_200

    if response.status_code == 401:
        response_401 = ApiError.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = ApiError.from_dict(response.json())

        return response_404

    if response.status_code == 422:
        response_422 = ApiError.from_dict(response.json())

        return response_422

    response_default = ApiError.from_dict(response.json())

    return response_default


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ApiError | str]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    after: int | Unset = UNSET,
    last_event_id: int | None | Unset = UNSET,
) -> Response[ApiError | str]:
    """The context's events as SSE (`context_update`, `content_delta`, `content_final`, `error`,
    `turn_completed`, `heartbeat`); every event of a turn carries its `turn_id` and `branch`, and
    `turn_completed` ends each turn; every logged event has an `id:`; reconnect with `Last-Event-ID`.

    Args:
        id (UUID): Identifies one context (conversation).
        after (int | Unset): Replay logged events after this sequence first (0 replays
            everything); `Last-Event-ID`
            does the same. Without either the stream starts live.
        last_event_id (int | None | Unset): The `id:` of the last event received: the stream
            replays what came after it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | str]
    """

    kwargs = _get_kwargs(
        id=id,
        after=after,
        last_event_id=last_event_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    after: int | Unset = UNSET,
    last_event_id: int | None | Unset = UNSET,
) -> ApiError | str | None:
    """The context's events as SSE (`context_update`, `content_delta`, `content_final`, `error`,
    `turn_completed`, `heartbeat`); every event of a turn carries its `turn_id` and `branch`, and
    `turn_completed` ends each turn; every logged event has an `id:`; reconnect with `Last-Event-ID`.

    Args:
        id (UUID): Identifies one context (conversation).
        after (int | Unset): Replay logged events after this sequence first (0 replays
            everything); `Last-Event-ID`
            does the same. Without either the stream starts live.
        last_event_id (int | None | Unset): The `id:` of the last event received: the stream
            replays what came after it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | str
    """

    return sync_detailed(
        id=id,
        client=client,
        after=after,
        last_event_id=last_event_id,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    after: int | Unset = UNSET,
    last_event_id: int | None | Unset = UNSET,
) -> Response[ApiError | str]:
    """The context's events as SSE (`context_update`, `content_delta`, `content_final`, `error`,
    `turn_completed`, `heartbeat`); every event of a turn carries its `turn_id` and `branch`, and
    `turn_completed` ends each turn; every logged event has an `id:`; reconnect with `Last-Event-ID`.

    Args:
        id (UUID): Identifies one context (conversation).
        after (int | Unset): Replay logged events after this sequence first (0 replays
            everything); `Last-Event-ID`
            does the same. Without either the stream starts live.
        last_event_id (int | None | Unset): The `id:` of the last event received: the stream
            replays what came after it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | str]
    """

    kwargs = _get_kwargs(
        id=id,
        after=after,
        last_event_id=last_event_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    after: int | Unset = UNSET,
    last_event_id: int | None | Unset = UNSET,
) -> ApiError | str | None:
    """The context's events as SSE (`context_update`, `content_delta`, `content_final`, `error`,
    `turn_completed`, `heartbeat`); every event of a turn carries its `turn_id` and `branch`, and
    `turn_completed` ends each turn; every logged event has an `id:`; reconnect with `Last-Event-ID`.

    Args:
        id (UUID): Identifies one context (conversation).
        after (int | Unset): Replay logged events after this sequence first (0 replays
            everything); `Last-Event-ID`
            does the same. Without either the stream starts live.
        last_event_id (int | None | Unset): The `id:` of the last event received: the stream
            replays what came after it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | str
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            after=after,
            last_event_id=last_event_id,
        )
    ).parsed
