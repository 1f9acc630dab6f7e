from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.context_summary import ContextSummary
from ...models.update_context_request import UpdateContextRequest
from ...types import Response


def _get_kwargs(
    id: UUID,
    *,
    body: UpdateContextRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/contexts/{id}".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | ContextSummary:
    if response.status_code == 200:
        response_200 = ContextSummary.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ApiError.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ApiError.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = ApiError.from_dict(response.json())

        return response_404

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
) -> Response[ApiError | ContextSummary]:
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
    body: UpdateContextRequest,
) -> Response[ApiError | ContextSummary]:
    """Changes the title and/or config (a JSON merge patch of the config).

    Args:
        id (UUID): Identifies one context (conversation).
        body (UpdateContextRequest): `PATCH /v1/contexts/{id}`: a new title and/or a JSON merge
            patch of the config (fields given
            replace the current ones, `null` clears an optional field).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | ContextSummary]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: UpdateContextRequest,
) -> ApiError | ContextSummary | None:
    """Changes the title and/or config (a JSON merge patch of the config).

    Args:
        id (UUID): Identifies one context (conversation).
        body (UpdateContextRequest): `PATCH /v1/contexts/{id}`: a new title and/or a JSON merge
            patch of the config (fields given
            replace the current ones, `null` clears an optional field).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | ContextSummary
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: UpdateContextRequest,
) -> Response[ApiError | ContextSummary]:
    """Changes the title and/or config (a JSON merge patch of the config).

    Args:
        id (UUID): Identifies one context (conversation).
        body (UpdateContextRequest): `PATCH /v1/contexts/{id}`: a new title and/or a JSON merge
            patch of the config (fields given
            replace the current ones, `null` clears an optional field).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | ContextSummary]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: UpdateContextRequest,
) -> ApiError | ContextSummary | None:
    """Changes the title and/or config (a JSON merge patch of the config).

    Args:
        id (UUID): Identifies one context (conversation).
        body (UpdateContextRequest): `PATCH /v1/contexts/{id}`: a new title and/or a JSON merge
            patch of the config (fields given
            replace the current ones, `null` clears an optional field).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | ContextSummary
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed
