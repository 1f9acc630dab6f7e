from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.mcp_server_definition import McpServerDefinition
from ...models.mcp_server_list import McpServerList
from ...types import Response


def _get_kwargs(
    name: str,
    *,
    body: McpServerDefinition,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v1/mcp/servers/{name}".format(
            name=quote(str(name), safe=""),
        ),
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
) -> Response[ApiError | McpServerList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    name: str,
    *,
    client: AuthenticatedClient,
    body: McpServerDefinition,
) -> Response[ApiError | McpServerList]:
    """Replaces a server's definition in `mcp_servers.json` (a `null` env or header value keeps the current
    one; the entry's other fields stay) and reconnects it; answers every server's status.

    Args:
        name (str): The server's name in `mcp_servers.json`.
        body (McpServerDefinition): An MCP server's entry in `mcp_servers.json` (Claude Desktop
            format), as
            `POST /v1/mcp/servers` and `PUT /v1/mcp/servers/{name}` take it: either `command` (with
            `args` and `env`) for a process speaking stdio, or `url` (with `headers`) for a streamable
            HTTP server. Fields of the file's entry this type does not hold (`oauth`,
            `resourceTtl`...)
            are kept when an entry is replaced.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | McpServerList]
    """

    kwargs = _get_kwargs(
        name=name,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    name: str,
    *,
    client: AuthenticatedClient,
    body: McpServerDefinition,
) -> ApiError | McpServerList | None:
    """Replaces a server's definition in `mcp_servers.json` (a `null` env or header value keeps the current
    one; the entry's other fields stay) and reconnects it; answers every server's status.

    Args:
        name (str): The server's name in `mcp_servers.json`.
        body (McpServerDefinition): An MCP server's entry in `mcp_servers.json` (Claude Desktop
            format), as
            `POST /v1/mcp/servers` and `PUT /v1/mcp/servers/{name}` take it: either `command` (with
            `args` and `env`) for a process speaking stdio, or `url` (with `headers`) for a streamable
            HTTP server. Fields of the file's entry this type does not hold (`oauth`,
            `resourceTtl`...)
            are kept when an entry is replaced.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | McpServerList
    """

    return sync_detailed(
        name=name,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    name: str,
    *,
    client: AuthenticatedClient,
    body: McpServerDefinition,
) -> Response[ApiError | McpServerList]:
    """Replaces a server's definition in `mcp_servers.json` (a `null` env or header value keeps the current
    one; the entry's other fields stay) and reconnects it; answers every server's status.

    Args:
        name (str): The server's name in `mcp_servers.json`.
        body (McpServerDefinition): An MCP server's entry in `mcp_servers.json` (Claude Desktop
            format), as
            `POST /v1/mcp/servers` and `PUT /v1/mcp/servers/{name}` take it: either `command` (with
            `args` and `env`) for a process speaking stdio, or `url` (with `headers`) for a streamable
            HTTP server. Fields of the file's entry this type does not hold (`oauth`,
            `resourceTtl`...)
            are kept when an entry is replaced.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | McpServerList]
    """

    kwargs = _get_kwargs(
        name=name,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    name: str,
    *,
    client: AuthenticatedClient,
    body: McpServerDefinition,
) -> ApiError | McpServerList | None:
    """Replaces a server's definition in `mcp_servers.json` (a `null` env or header value keeps the current
    one; the entry's other fields stay) and reconnects it; answers every server's status.

    Args:
        name (str): The server's name in `mcp_servers.json`.
        body (McpServerDefinition): An MCP server's entry in `mcp_servers.json` (Claude Desktop
            format), as
            `POST /v1/mcp/servers` and `PUT /v1/mcp/servers/{name}` take it: either `command` (with
            `args` and `env`) for a process speaking stdio, or `url` (with `headers`) for a streamable
            HTTP server. Fields of the file's entry this type does not hold (`oauth`,
            `resourceTtl`...)
            are kept when an entry is replaced.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | McpServerList
    """

    return (
        await asyncio_detailed(
            name=name,
            client=client,
            body=body,
        )
    ).parsed
