from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.context_summary import ContextSummary
from ...models.create_context_request import CreateContextRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: CreateContextRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/contexts",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | ContextSummary:
    if response.status_code == 201:
        response_201 = ContextSummary.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = ApiError.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ApiError.from_dict(response.json())

        return response_401

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
) -> Response[ApiError | ContextSummary]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateContextRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ApiError | ContextSummary]:
    """Creates a context; answers it as `GET /v1/contexts/{id}` would. Without a `workspace` in its config
    it works in the server's default workspace, the first allowed root (`--workspace-root`).

    Args:
        idempotency_key (str | Unset):
        body (CreateContextRequest): `POST /v1/contexts`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | ContextSummary]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: CreateContextRequest,
    idempotency_key: str | Unset = UNSET,
) -> ApiError | ContextSummary | None:
    """Creates a context; answers it as `GET /v1/contexts/{id}` would. Without a `workspace` in its config
    it works in the server's default workspace, the first allowed root (`--workspace-root`).

    Args:
        idempotency_key (str | Unset):
        body (CreateContextRequest): `POST /v1/contexts`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | ContextSummary
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateContextRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ApiError | ContextSummary]:
    """Creates a context; answers it as `GET /v1/contexts/{id}` would. Without a `workspace` in its config
    it works in the server's default workspace, the first allowed root (`--workspace-root`).

    Args:
        idempotency_key (str | Unset):
        body (CreateContextRequest): `POST /v1/contexts`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | ContextSummary]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CreateContextRequest,
    idempotency_key: str | Unset = UNSET,
) -> ApiError | ContextSummary | None:
    """Creates a context; answers it as `GET /v1/contexts/{id}` would. Without a `workspace` in its config
    it works in the server's default workspace, the first allowed root (`--workspace-root`).

    Args:
        idempotency_key (str | Unset):
        body (CreateContextRequest): `POST /v1/contexts`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | ContextSummary
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
