from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.file_change_preview import FileChangePreview
from ...models.file_change_preview_request import FileChangePreviewRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    body: FileChangePreviewRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/contexts/{id}/files/preview".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | FileChangePreview:
    if response.status_code == 200:
        response_200 = FileChangePreview.from_dict(response.json())

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
) -> Response[ApiError | FileChangePreview]:
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
    body: FileChangePreviewRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ApiError | FileChangePreview]:
    """What a file-changing tool call (`write_file`, `create_file`, `replace_in_file`, `delete_file`) would
    do to the file as it is in the context's workspace now: the text before and after (each at most 1
    MiB), the lines an overwrite replaces, the line a replacement starts at. Reads only. 409 without a
    workspace; 422 for another tool, bad arguments or a path outside the workspace.

    Args:
        id (UUID): Identifies one context (conversation).
        idempotency_key (str | Unset):
        body (FileChangePreviewRequest): `POST /v1/contexts/{id}/files/preview`: a file-changing
            tool call to preview against the
            workspace as it is now (the approval card shows what the call would change).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | FileChangePreview]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: FileChangePreviewRequest,
    idempotency_key: str | Unset = UNSET,
) -> ApiError | FileChangePreview | None:
    """What a file-changing tool call (`write_file`, `create_file`, `replace_in_file`, `delete_file`) would
    do to the file as it is in the context's workspace now: the text before and after (each at most 1
    MiB), the lines an overwrite replaces, the line a replacement starts at. Reads only. 409 without a
    workspace; 422 for another tool, bad arguments or a path outside the workspace.

    Args:
        id (UUID): Identifies one context (conversation).
        idempotency_key (str | Unset):
        body (FileChangePreviewRequest): `POST /v1/contexts/{id}/files/preview`: a file-changing
            tool call to preview against the
            workspace as it is now (the approval card shows what the call would change).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | FileChangePreview
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: FileChangePreviewRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ApiError | FileChangePreview]:
    """What a file-changing tool call (`write_file`, `create_file`, `replace_in_file`, `delete_file`) would
    do to the file as it is in the context's workspace now: the text before and after (each at most 1
    MiB), the lines an overwrite replaces, the line a replacement starts at. Reads only. 409 without a
    workspace; 422 for another tool, bad arguments or a path outside the workspace.

    Args:
        id (UUID): Identifies one context (conversation).
        idempotency_key (str | Unset):
        body (FileChangePreviewRequest): `POST /v1/contexts/{id}/files/preview`: a file-changing
            tool call to preview against the
            workspace as it is now (the approval card shows what the call would change).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | FileChangePreview]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: FileChangePreviewRequest,
    idempotency_key: str | Unset = UNSET,
) -> ApiError | FileChangePreview | None:
    """What a file-changing tool call (`write_file`, `create_file`, `replace_in_file`, `delete_file`) would
    do to the file as it is in the context's workspace now: the text before and after (each at most 1
    MiB), the lines an overwrite replaces, the line a replacement starts at. Reads only. 409 without a
    workspace; 422 for another tool, bad arguments or a path outside the workspace.

    Args:
        id (UUID): Identifies one context (conversation).
        idempotency_key (str | Unset):
        body (FileChangePreviewRequest): `POST /v1/contexts/{id}/files/preview`: a file-changing
            tool call to preview against the
            workspace as it is now (the approval card shows what the call would change).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | FileChangePreview
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
