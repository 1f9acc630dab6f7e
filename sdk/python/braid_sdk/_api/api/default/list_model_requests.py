from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.model_request_list import ModelRequestList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    before: UUID | Unset = UNSET,
    branch: str | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_before: str | Unset = UNSET
    if not isinstance(before, Unset):
        json_before = str(before)
    params["before"] = json_before

    params["branch"] = branch

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/contexts/{id}/requests".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | ModelRequestList:
    if response.status_code == 200:
        response_200 = ModelRequestList.from_dict(response.json())

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
) -> Response[ApiError | ModelRequestList]:
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
    before: UUID | Unset = UNSET,
    branch: str | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> Response[ApiError | ModelRequestList]:
    """What the model was sent, newest first: one record per request, naming each message sent (whole,
    truncated, elided or as a summary) with its tokens, the ledger block, the messages left out, the
    system prompt's and tools' tokens, against the window and reserve. An answer's
    `metadata.model_request_id` names its record.

    Args:
        id (UUID): Identifies one context (conversation).
        before (UUID | Unset): Identifies one recorded model request (`ModelRequestRecord`): what
            one call to the model
            was sent.
        branch (str | Unset): The name of a branch within a context, unique in that context
            (`main` by default).
        limit (int | Unset): At most this many (default 20, at most 1000).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | ModelRequestList]
    """

    kwargs = _get_kwargs(
        id=id,
        before=before,
        branch=branch,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    before: UUID | Unset = UNSET,
    branch: str | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> ApiError | ModelRequestList | None:
    """What the model was sent, newest first: one record per request, naming each message sent (whole,
    truncated, elided or as a summary) with its tokens, the ledger block, the messages left out, the
    system prompt's and tools' tokens, against the window and reserve. An answer's
    `metadata.model_request_id` names its record.

    Args:
        id (UUID): Identifies one context (conversation).
        before (UUID | Unset): Identifies one recorded model request (`ModelRequestRecord`): what
            one call to the model
            was sent.
        branch (str | Unset): The name of a branch within a context, unique in that context
            (`main` by default).
        limit (int | Unset): At most this many (default 20, at most 1000).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | ModelRequestList
    """

    return sync_detailed(
        id=id,
        client=client,
        before=before,
        branch=branch,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    before: UUID | Unset = UNSET,
    branch: str | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> Response[ApiError | ModelRequestList]:
    """What the model was sent, newest first: one record per request, naming each message sent (whole,
    truncated, elided or as a summary) with its tokens, the ledger block, the messages left out, the
    system prompt's and tools' tokens, against the window and reserve. An answer's
    `metadata.model_request_id` names its record.

    Args:
        id (UUID): Identifies one context (conversation).
        before (UUID | Unset): Identifies one recorded model request (`ModelRequestRecord`): what
            one call to the model
            was sent.
        branch (str | Unset): The name of a branch within a context, unique in that context
            (`main` by default).
        limit (int | Unset): At most this many (default 20, at most 1000).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | ModelRequestList]
    """

    kwargs = _get_kwargs(
        id=id,
        before=before,
        branch=branch,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    before: UUID | Unset = UNSET,
    branch: str | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> ApiError | ModelRequestList | None:
    """What the model was sent, newest first: one record per request, naming each message sent (whole,
    truncated, elided or as a summary) with its tokens, the ledger block, the messages left out, the
    system prompt's and tools' tokens, against the window and reserve. An answer's
    `metadata.model_request_id` names its record.

    Args:
        id (UUID): Identifies one context (conversation).
        before (UUID | Unset): Identifies one recorded model request (`ModelRequestRecord`): what
            one call to the model
            was sent.
        branch (str | Unset): The name of a branch within a context, unique in that context
            (`main` by default).
        limit (int | Unset): At most this many (default 20, at most 1000).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | ModelRequestList
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            before=before,
            branch=branch,
            limit=limit,
        )
    ).parsed
