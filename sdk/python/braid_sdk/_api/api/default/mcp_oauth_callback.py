from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    code: str | Unset = UNSET,
    error: str | Unset = UNSET,
    error_description: str | Unset = UNSET,
    iss: str | Unset = UNSET,
    state: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["code"] = code

    params["error"] = error

    params["error_description"] = error_description

    params["iss"] = iss

    params["state"] = state

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/mcp/oauth/callback",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | str | None:
    if response.status_code == 200:
        response_200 = response.text
        return response_200

    if response.status_code == 422:
        response_422 = ApiError.from_dict(response.json())

        return response_422

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


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
    *,
    client: AuthenticatedClient | Client,
    code: str | Unset = UNSET,
    error: str | Unset = UNSET,
    error_description: str | Unset = UNSET,
    iss: str | Unset = UNSET,
    state: str | Unset = UNSET,
) -> Response[ApiError | str]:
    """Where an MCP server's authorization server sends the person's browser back: finishes the
    authorization and shows a page saying so.

    Args:
        code (str | Unset): The authorization code.
        error (str | Unset): Why the authorization server refused, instead of a code.
        error_description (str | Unset): The refusal in words.
        iss (str | Unset): The authorization server's issuer (RFC 9207).
        state (str | Unset): The state Braid sent with the authorization request.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | str]
    """

    kwargs = _get_kwargs(
        code=code,
        error=error,
        error_description=error_description,
        iss=iss,
        state=state,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    code: str | Unset = UNSET,
    error: str | Unset = UNSET,
    error_description: str | Unset = UNSET,
    iss: str | Unset = UNSET,
    state: str | Unset = UNSET,
) -> ApiError | str | None:
    """Where an MCP server's authorization server sends the person's browser back: finishes the
    authorization and shows a page saying so.

    Args:
        code (str | Unset): The authorization code.
        error (str | Unset): Why the authorization server refused, instead of a code.
        error_description (str | Unset): The refusal in words.
        iss (str | Unset): The authorization server's issuer (RFC 9207).
        state (str | Unset): The state Braid sent with the authorization request.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | str
    """

    return sync_detailed(
        client=client,
        code=code,
        error=error,
        error_description=error_description,
        iss=iss,
        state=state,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    code: str | Unset = UNSET,
    error: str | Unset = UNSET,
    error_description: str | Unset = UNSET,
    iss: str | Unset = UNSET,
    state: str | Unset = UNSET,
) -> Response[ApiError | str]:
    """Where an MCP server's authorization server sends the person's browser back: finishes the
    authorization and shows a page saying so.

    Args:
        code (str | Unset): The authorization code.
        error (str | Unset): Why the authorization server refused, instead of a code.
        error_description (str | Unset): The refusal in words.
        iss (str | Unset): The authorization server's issuer (RFC 9207).
        state (str | Unset): The state Braid sent with the authorization request.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | str]
    """

    kwargs = _get_kwargs(
        code=code,
        error=error,
        error_description=error_description,
        iss=iss,
        state=state,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    code: str | Unset = UNSET,
    error: str | Unset = UNSET,
    error_description: str | Unset = UNSET,
    iss: str | Unset = UNSET,
    state: str | Unset = UNSET,
) -> ApiError | str | None:
    """Where an MCP server's authorization server sends the person's browser back: finishes the
    authorization and shows a page saying so.

    Args:
        code (str | Unset): The authorization code.
        error (str | Unset): Why the authorization server refused, instead of a code.
        error_description (str | Unset): The refusal in words.
        iss (str | Unset): The authorization server's issuer (RFC 9207).
        state (str | Unset): The state Braid sent with the authorization request.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | str
    """

    return (
        await asyncio_detailed(
            client=client,
            code=code,
            error=error,
            error_description=error_description,
            iss=iss,
            state=state,
        )
    ).parsed
