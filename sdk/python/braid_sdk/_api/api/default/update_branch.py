from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.branch_info import BranchInfo
from ...models.update_branch_request import UpdateBranchRequest
from ...types import Response


def _get_kwargs(
    id: UUID,
    name: str,
    *,
    body: UpdateBranchRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/contexts/{id}/branches/{name}".format(
            id=quote(str(id), safe=""),
            name=quote(str(name), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | BranchInfo:
    if response.status_code == 200:
        response_200 = BranchInfo.from_dict(response.json())

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
) -> Response[ApiError | BranchInfo]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    name: str,
    *,
    client: AuthenticatedClient,
    body: UpdateBranchRequest,
) -> Response[ApiError | BranchInfo]:
    """Changes a branch's system-prompt override and pipeline (absent fields stay, `null` clears).

    Args:
        id (UUID): Identifies one context (conversation).
        name (str): The name of a branch within a context, unique in that context (`main` by
            default).
        body (UpdateBranchRequest): `PATCH /v1/contexts/{id}/branches/{name}`: changes a branch's
            settings after its creation.
            An absent field stays as it is; `null` clears it (the base prompt, the standard pipeline).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | BranchInfo]
    """

    kwargs = _get_kwargs(
        id=id,
        name=name,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    name: str,
    *,
    client: AuthenticatedClient,
    body: UpdateBranchRequest,
) -> ApiError | BranchInfo | None:
    """Changes a branch's system-prompt override and pipeline (absent fields stay, `null` clears).

    Args:
        id (UUID): Identifies one context (conversation).
        name (str): The name of a branch within a context, unique in that context (`main` by
            default).
        body (UpdateBranchRequest): `PATCH /v1/contexts/{id}/branches/{name}`: changes a branch's
            settings after its creation.
            An absent field stays as it is; `null` clears it (the base prompt, the standard pipeline).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | BranchInfo
    """

    return sync_detailed(
        id=id,
        name=name,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    name: str,
    *,
    client: AuthenticatedClient,
    body: UpdateBranchRequest,
) -> Response[ApiError | BranchInfo]:
    """Changes a branch's system-prompt override and pipeline (absent fields stay, `null` clears).

    Args:
        id (UUID): Identifies one context (conversation).
        name (str): The name of a branch within a context, unique in that context (`main` by
            default).
        body (UpdateBranchRequest): `PATCH /v1/contexts/{id}/branches/{name}`: changes a branch's
            settings after its creation.
            An absent field stays as it is; `null` clears it (the base prompt, the standard pipeline).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | BranchInfo]
    """

    kwargs = _get_kwargs(
        id=id,
        name=name,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    name: str,
    *,
    client: AuthenticatedClient,
    body: UpdateBranchRequest,
) -> ApiError | BranchInfo | None:
    """Changes a branch's system-prompt override and pipeline (absent fields stay, `null` clears).

    Args:
        id (UUID): Identifies one context (conversation).
        name (str): The name of a branch within a context, unique in that context (`main` by
            default).
        body (UpdateBranchRequest): `PATCH /v1/contexts/{id}/branches/{name}`: changes a branch's
            settings after its creation.
            An absent field stays as it is; `null` clears it (the base prompt, the standard pipeline).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | BranchInfo
    """

    return (
        await asyncio_detailed(
            id=id,
            name=name,
            client=client,
            body=body,
        )
    ).parsed
