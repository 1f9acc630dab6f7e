from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.state_response import StateResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    history: bool | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["history"] = history

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/contexts/{id}/state".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | StateResponse:
    if response.status_code == 200:
        response_200 = StateResponse.from_dict(response.json())

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
) -> Response[ApiError | StateResponse]:
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
    history: bool | Unset = UNSET,
) -> Response[ApiError | StateResponse]:
    """The current state, and the transition history with `history=true`.

    Args:
        id (UUID): Identifies one context (conversation).
        history (bool | Unset): Include the transition history.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | StateResponse]
    """

    kwargs = _get_kwargs(
        id=id,
        history=history,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    history: bool | Unset = UNSET,
) -> ApiError | StateResponse | None:
    """The current state, and the transition history with `history=true`.

    Args:
        id (UUID): Identifies one context (conversation).
        history (bool | Unset): Include the transition history.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | StateResponse
    """

    return sync_detailed(
        id=id,
        client=client,
        history=history,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    history: bool | Unset = UNSET,
) -> Response[ApiError | StateResponse]:
    """The current state, and the transition history with `history=true`.

    Args:
        id (UUID): Identifies one context (conversation).
        history (bool | Unset): Include the transition history.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | StateResponse]
    """

    kwargs = _get_kwargs(
        id=id,
        history=history,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    history: bool | Unset = UNSET,
) -> ApiError | StateResponse | None:
    """The current state, and the transition history with `history=true`.

    Args:
        id (UUID): Identifies one context (conversation).
        history (bool | Unset): Include the transition history.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | StateResponse
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            history=history,
        )
    ).parsed
