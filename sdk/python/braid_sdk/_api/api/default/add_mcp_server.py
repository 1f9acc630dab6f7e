from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.add_mcp_server_request import AddMcpServerRequest
from ...models.api_error import ApiError
from ...models.mcp_server_list import McpServerList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: AddMcpServerRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/mcp/servers",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | McpServerList:
    if response.status_code == 200:
        response_200 = McpServerList.from_dict(response.json())

        return response_200

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
) -> Response[ApiError | McpServerList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: AddMcpServerRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ApiError | McpServerList]:
    """Adds a server to `mcp_servers.json` (`command` for stdio or `url` for streamable HTTP; 422 names the
    field, 409 when the name is taken or Braid has no configuration file) and connects to it; answers
    every server's status.

    Args:
        idempotency_key (str | Unset):
        body (AddMcpServerRequest): `POST /v1/mcp/servers`: a new server for `mcp_servers.json`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | McpServerList]
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
    body: AddMcpServerRequest,
    idempotency_key: str | Unset = UNSET,
) -> ApiError | McpServerList | None:
    """Adds a server to `mcp_servers.json` (`command` for stdio or `url` for streamable HTTP; 422 names the
    field, 409 when the name is taken or Braid has no configuration file) and connects to it; answers
    every server's status.

    Args:
        idempotency_key (str | Unset):
        body (AddMcpServerRequest): `POST /v1/mcp/servers`: a new server for `mcp_servers.json`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | McpServerList
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: AddMcpServerRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ApiError | McpServerList]:
    """Adds a server to `mcp_servers.json` (`command` for stdio or `url` for streamable HTTP; 422 names the
    field, 409 when the name is taken or Braid has no configuration file) and connects to it; answers
    every server's status.

    Args:
        idempotency_key (str | Unset):
        body (AddMcpServerRequest): `POST /v1/mcp/servers`: a new server for `mcp_servers.json`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | McpServerList]
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
    body: AddMcpServerRequest,
    idempotency_key: str | Unset = UNSET,
) -> ApiError | McpServerList | None:
    """Adds a server to `mcp_servers.json` (`command` for stdio or `url` for streamable HTTP; 422 names the
    field, 409 when the name is taken or Braid has no configuration file) and connects to it; answers
    every server's status.

    Args:
        idempotency_key (str | Unset):
        body (AddMcpServerRequest): `POST /v1/mcp/servers`: a new server for `mcp_servers.json`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | McpServerList
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
