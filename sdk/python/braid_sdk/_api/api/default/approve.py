from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.approval_request import ApprovalRequest
from ...models.approval_response import ApprovalResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    body: ApprovalRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/contexts/{id}/approvals".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | ApprovalResponse:
    if response.status_code == 202:
        response_202 = ApprovalResponse.from_dict(response.json())

        return response_202

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
) -> Response[ApiError | ApprovalResponse]:
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
    body: ApprovalRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ApiError | ApprovalResponse]:
    """Approves or denies pending tool calls. Once every waiting call is decided, the 202 names the turn
    that continues the loop (`turn_id`, and `stream_after` to stream it from); while other calls still
    wait, it names none.

    Args:
        id (UUID): Identifies one context (conversation).
        idempotency_key (str | Unset):
        body (ApprovalRequest): `POST /v1/contexts/{id}/approvals`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | ApprovalResponse]
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
    body: ApprovalRequest,
    idempotency_key: str | Unset = UNSET,
) -> ApiError | ApprovalResponse | None:
    """Approves or denies pending tool calls. Once every waiting call is decided, the 202 names the turn
    that continues the loop (`turn_id`, and `stream_after` to stream it from); while other calls still
    wait, it names none.

    Args:
        id (UUID): Identifies one context (conversation).
        idempotency_key (str | Unset):
        body (ApprovalRequest): `POST /v1/contexts/{id}/approvals`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | ApprovalResponse
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
    body: ApprovalRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ApiError | ApprovalResponse]:
    """Approves or denies pending tool calls. Once every waiting call is decided, the 202 names the turn
    that continues the loop (`turn_id`, and `stream_after` to stream it from); while other calls still
    wait, it names none.

    Args:
        id (UUID): Identifies one context (conversation).
        idempotency_key (str | Unset):
        body (ApprovalRequest): `POST /v1/contexts/{id}/approvals`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | ApprovalResponse]
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
    body: ApprovalRequest,
    idempotency_key: str | Unset = UNSET,
) -> ApiError | ApprovalResponse | None:
    """Approves or denies pending tool calls. Once every waiting call is decided, the 202 names the turn
    that continues the loop (`turn_id`, and `stream_after` to stream it from); while other calls still
    wait, it names none.

    Args:
        id (UUID): Identifies one context (conversation).
        idempotency_key (str | Unset):
        body (ApprovalRequest): `POST /v1/contexts/{id}/approvals`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | ApprovalResponse
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
