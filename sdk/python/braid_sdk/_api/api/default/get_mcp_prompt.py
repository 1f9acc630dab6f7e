from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.get_mcp_prompt_request import GetMcpPromptRequest
from ...models.mcp_prompt_text import McpPromptText
from ...types import UNSET, Response, Unset


def _get_kwargs(
    server: str,
    name: str,
    *,
    body: GetMcpPromptRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/mcp/prompts/{server}/{name}".format(
            server=quote(str(server), safe=""),
            name=quote(str(name), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | McpPromptText:
    if response.status_code == 200:
        response_200 = McpPromptText.from_dict(response.json())

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
) -> Response[ApiError | McpPromptText]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    server: str,
    name: str,
    *,
    client: AuthenticatedClient,
    body: GetMcpPromptRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ApiError | McpPromptText]:
    """Gets a prompt with its arguments, as the text to send.

    Args:
        server (str): The MCP server's name.
        name (str): The prompt's name.
        idempotency_key (str | Unset):
        body (GetMcpPromptRequest): `POST /v1/mcp/prompts/{server}/{name}`: the prompt's
            arguments.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | McpPromptText]
    """

    kwargs = _get_kwargs(
        server=server,
        name=name,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    server: str,
    name: str,
    *,
    client: AuthenticatedClient,
    body: GetMcpPromptRequest,
    idempotency_key: str | Unset = UNSET,
) -> ApiError | McpPromptText | None:
    """Gets a prompt with its arguments, as the text to send.

    Args:
        server (str): The MCP server's name.
        name (str): The prompt's name.
        idempotency_key (str | Unset):
        body (GetMcpPromptRequest): `POST /v1/mcp/prompts/{server}/{name}`: the prompt's
            arguments.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | McpPromptText
    """

    return sync_detailed(
        server=server,
        name=name,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    server: str,
    name: str,
    *,
    client: AuthenticatedClient,
    body: GetMcpPromptRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ApiError | McpPromptText]:
    """Gets a prompt with its arguments, as the text to send.

    Args:
        server (str): The MCP server's name.
        name (str): The prompt's name.
        idempotency_key (str | Unset):
        body (GetMcpPromptRequest): `POST /v1/mcp/prompts/{server}/{name}`: the prompt's
            arguments.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | McpPromptText]
    """

    kwargs = _get_kwargs(
        server=server,
        name=name,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    server: str,
    name: str,
    *,
    client: AuthenticatedClient,
    body: GetMcpPromptRequest,
    idempotency_key: str | Unset = UNSET,
) -> ApiError | McpPromptText | None:
    """Gets a prompt with its arguments, as the text to send.

    Args:
        server (str): The MCP server's name.
        name (str): The prompt's name.
        idempotency_key (str | Unset):
        body (GetMcpPromptRequest): `POST /v1/mcp/prompts/{server}/{name}`: the prompt's
            arguments.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | McpPromptText
    """

    return (
        await asyncio_detailed(
            server=server,
            name=name,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
