from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.merge_held import MergeHeld
from ...models.merge_outcome import MergeOutcome
from ...models.merge_request import MergeRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    name: str,
    *,
    body: MergeRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/contexts/{id}/branches/{name}/merge".format(
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
) -> ApiError | MergeHeld | MergeOutcome:
    if response.status_code == 200:
        response_200 = MergeOutcome.from_dict(response.json())

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
        response_409 = MergeHeld.from_dict(response.json())

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
) -> Response[ApiError | MergeHeld | MergeOutcome]:
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
    body: MergeRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ApiError | MergeHeld | MergeOutcome]:
    """Merges branch `{name}` into `target` (the active branch by default) with a strategy (`append`,
    `cherry_pick`, `rebase`). `dry_run` previews without changing anything. A merge with conflicts that
    have no resolution, or with dependency warnings not accepted, answers 409 with the `error` and the
    same outcome (`warnings`, `conflicts` with their `suggestions`) and changes nothing.

    Args:
        id (UUID): Identifies one context (conversation).
        name (str): The name of a branch within a context, unique in that context (`main` by
            default).
        idempotency_key (str | Unset):
        body (MergeRequest): `POST .../branches/{name}/merge`: merge branch `{name}` (the source)
            into `target`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | MergeHeld | MergeOutcome]
    """

    kwargs = _get_kwargs(
        id=id,
        name=name,
        body=body,
        idempotency_key=idempotency_key,
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
    body: MergeRequest,
    idempotency_key: str | Unset = UNSET,
) -> ApiError | MergeHeld | MergeOutcome | None:
    """Merges branch `{name}` into `target` (the active branch by default) with a strategy (`append`,
    `cherry_pick`, `rebase`). `dry_run` previews without changing anything. A merge with conflicts that
    have no resolution, or with dependency warnings not accepted, answers 409 with the `error` and the
    same outcome (`warnings`, `conflicts` with their `suggestions`) and changes nothing.

    Args:
        id (UUID): Identifies one context (conversation).
        name (str): The name of a branch within a context, unique in that context (`main` by
            default).
        idempotency_key (str | Unset):
        body (MergeRequest): `POST .../branches/{name}/merge`: merge branch `{name}` (the source)
            into `target`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | MergeHeld | MergeOutcome
    """

    return sync_detailed(
        id=id,
        name=name,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    name: str,
    *,
    client: AuthenticatedClient,
    body: MergeRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ApiError | MergeHeld | MergeOutcome]:
    """Merges branch `{name}` into `target` (the active branch by default) with a strategy (`append`,
    `cherry_pick`, `rebase`). `dry_run` previews without changing anything. A merge with conflicts that
    have no resolution, or with dependency warnings not accepted, answers 409 with the `error` and the
    same outcome (`warnings`, `conflicts` with their `suggestions`) and changes nothing.

    Args:
        id (UUID): Identifies one context (conversation).
        name (str): The name of a branch within a context, unique in that context (`main` by
            default).
        idempotency_key (str | Unset):
        body (MergeRequest): `POST .../branches/{name}/merge`: merge branch `{name}` (the source)
            into `target`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | MergeHeld | MergeOutcome]
    """

    kwargs = _get_kwargs(
        id=id,
        name=name,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    name: str,
    *,
    client: AuthenticatedClient,
    body: MergeRequest,
    idempotency_key: str | Unset = UNSET,
) -> ApiError | MergeHeld | MergeOutcome | None:
    """Merges branch `{name}` into `target` (the active branch by default) with a strategy (`append`,
    `cherry_pick`, `rebase`). `dry_run` previews without changing anything. A merge with conflicts that
    have no resolution, or with dependency warnings not accepted, answers 409 with the `error` and the
    same outcome (`warnings`, `conflicts` with their `suggestions`) and changes nothing.

    Args:
        id (UUID): Identifies one context (conversation).
        name (str): The name of a branch within a context, unique in that context (`main` by
            default).
        idempotency_key (str | Unset):
        body (MergeRequest): `POST .../branches/{name}/merge`: merge branch `{name}` (the source)
            into `target`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | MergeHeld | MergeOutcome
    """

    return (
        await asyncio_detailed(
            id=id,
            name=name,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
