from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.model_request_record import ModelRequestRecord
from ...types import Response


def _get_kwargs(
    id: UUID,
    request_id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/contexts/{id}/requests/{request_id}".format(
            id=quote(str(id), safe=""),
            request_id=quote(str(request_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | ModelRequestRecord:
    if response.status_code == 200:
        response_200 = ModelRequestRecord.from_dict(response.json())

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
) -> Response[ApiError | ModelRequestRecord]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    request_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[ApiError | ModelRequestRecord]:
    """One request record. 404 for an unknown one.

    Args:
        id (UUID): Identifies one context (conversation).
        request_id (UUID): Identifies one recorded model request (`ModelRequestRecord`): what one
            call to the model
            was sent.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | ModelRequestRecord]
    """

    kwargs = _get_kwargs(
        id=id,
        request_id=request_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    request_id: UUID,
    *,
    client: AuthenticatedClient,
) -> ApiError | ModelRequestRecord | None:
    """One request record. 404 for an unknown one.

    Args:
        id (UUID): Identifies one context (conversation).
        request_id (UUID): Identifies one recorded model request (`ModelRequestRecord`): what one
            call to the model
            was sent.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | ModelRequestRecord
    """

    return sync_detailed(
        id=id,
        request_id=request_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    request_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[ApiError | ModelRequestRecord]:
    """One request record. 404 for an unknown one.

    Args:
        id (UUID): Identifies one context (conversation).
        request_id (UUID): Identifies one recorded model request (`ModelRequestRecord`): what one
            call to the model
            was sent.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | ModelRequestRecord]
    """

    kwargs = _get_kwargs(
        id=id,
        request_id=request_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    request_id: UUID,
    *,
    client: AuthenticatedClient,
) -> ApiError | ModelRequestRecord | None:
    """One request record. 404 for an unknown one.

    Args:
        id (UUID): Identifies one context (conversation).
        request_id (UUID): Identifies one recorded model request (`ModelRequestRecord`): what one
            call to the model
            was sent.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | ModelRequestRecord
    """

    return (
        await asyncio_detailed(
            id=id,
            request_id=request_id,
            client=client,
        )
    ).parsed
