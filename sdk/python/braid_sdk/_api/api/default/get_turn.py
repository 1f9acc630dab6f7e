from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.turn_view import TurnView
from ...types import Response


def _get_kwargs(
    id: UUID,
    turn_id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/contexts/{id}/turns/{turn_id}".format(
            id=quote(str(id), safe=""),
            turn_id=quote(str(turn_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | TurnView:
    if response.status_code == 200:
        response_200 = TurnView.from_dict(response.json())

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
) -> Response[ApiError | TurnView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    turn_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[ApiError | TurnView]:
    """Where a turn is: `queued`, `running`, or `completed` with its `outcome` (as its `turn_completed`
    event said). A send's 202 names its `turn_id`. 404 for an unknown turn.

    Args:
        id (UUID): Identifies one context (conversation).
        turn_id (UUID): Identifies one turn of a context (`turn_id` in the API): the work one
            send, resume or
            approval starts, from its first event to its `turn_completed` event.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | TurnView]
    """

    kwargs = _get_kwargs(
        id=id,
        turn_id=turn_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    turn_id: UUID,
    *,
    client: AuthenticatedClient,
) -> ApiError | TurnView | None:
    """Where a turn is: `queued`, `running`, or `completed` with its `outcome` (as its `turn_completed`
    event said). A send's 202 names its `turn_id`. 404 for an unknown turn.

    Args:
        id (UUID): Identifies one context (conversation).
        turn_id (UUID): Identifies one turn of a context (`turn_id` in the API): the work one
            send, resume or
            approval starts, from its first event to its `turn_completed` event.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | TurnView
    """

    return sync_detailed(
        id=id,
        turn_id=turn_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    turn_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[ApiError | TurnView]:
    """Where a turn is: `queued`, `running`, or `completed` with its `outcome` (as its `turn_completed`
    event said). A send's 202 names its `turn_id`. 404 for an unknown turn.

    Args:
        id (UUID): Identifies one context (conversation).
        turn_id (UUID): Identifies one turn of a context (`turn_id` in the API): the work one
            send, resume or
            approval starts, from its first event to its `turn_completed` event.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | TurnView]
    """

    kwargs = _get_kwargs(
        id=id,
        turn_id=turn_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    turn_id: UUID,
    *,
    client: AuthenticatedClient,
) -> ApiError | TurnView | None:
    """Where a turn is: `queued`, `running`, or `completed` with its `outcome` (as its `turn_completed`
    event said). A send's 202 names its `turn_id`. 404 for an unknown turn.

    Args:
        id (UUID): Identifies one context (conversation).
        turn_id (UUID): Identifies one turn of a context (`turn_id` in the API): the work one
            send, resume or
            approval starts, from its first event to its `turn_completed` event.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | TurnView
    """

    return (
        await asyncio_detailed(
            id=id,
            turn_id=turn_id,
            client=client,
        )
    ).parsed
