from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.workspace_file_list import WorkspaceFileList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    limit: int | Unset = UNSET,
    query: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["query"] = query

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/contexts/{id}/files".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | WorkspaceFileList:
    if response.status_code == 200:
        response_200 = WorkspaceFileList.from_dict(response.json())

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
) -> Response[ApiError | WorkspaceFileList]:
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
    limit: int | Unset = UNSET,
    query: str | Unset = UNSET,
) -> Response[ApiError | WorkspaceFileList]:
    """Files of the context's workspace (gitignored ones left out), for the file picker.

    Args:
        id (UUID): Identifies one context (conversation).
        limit (int | Unset): At most this many files (1 to 1000, default 200).
        query (str | Unset): Only files whose path contains this text (ignoring case).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | WorkspaceFileList]
    """

    kwargs = _get_kwargs(
        id=id,
        limit=limit,
        query=query,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    query: str | Unset = UNSET,
) -> ApiError | WorkspaceFileList | None:
    """Files of the context's workspace (gitignored ones left out), for the file picker.

    Args:
        id (UUID): Identifies one context (conversation).
        limit (int | Unset): At most this many files (1 to 1000, default 200).
        query (str | Unset): Only files whose path contains this text (ignoring case).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | WorkspaceFileList
    """

    return sync_detailed(
        id=id,
        client=client,
        limit=limit,
        query=query,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    query: str | Unset = UNSET,
) -> Response[ApiError | WorkspaceFileList]:
    """Files of the context's workspace (gitignored ones left out), for the file picker.

    Args:
        id (UUID): Identifies one context (conversation).
        limit (int | Unset): At most this many files (1 to 1000, default 200).
        query (str | Unset): Only files whose path contains this text (ignoring case).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | WorkspaceFileList]
    """

    kwargs = _get_kwargs(
        id=id,
        limit=limit,
        query=query,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    query: str | Unset = UNSET,
) -> ApiError | WorkspaceFileList | None:
    """Files of the context's workspace (gitignored ones left out), for the file picker.

    Args:
        id (UUID): Identifies one context (conversation).
        limit (int | Unset): At most this many files (1 to 1000, default 200).
        query (str | Unset): Only files whose path contains this text (ignoring case).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | WorkspaceFileList
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            limit=limit,
            query=query,
        )
    ).parsed
