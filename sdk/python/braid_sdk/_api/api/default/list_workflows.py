from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.workflow_list import WorkflowList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    context: UUID | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_context: str | Unset = UNSET
    if not isinstance(context, Unset):
        json_context = str(context)
    params["context"] = json_context

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/workflows",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | WorkflowList:
    if response.status_code == 200:
        response_200 = WorkflowList.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ApiError.from_dict(response.json())

        return response_401

    if response.status_code == 422:
        response_422 = ApiError.from_dict(response.json())

        return response_422

    response_default = ApiError.from_dict(response.json())

    return response_default


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ApiError | WorkflowList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    context: UUID | Unset = UNSET,
) -> Response[ApiError | WorkflowList]:
    """Workflow definitions a context can use (its workspace's `.braid/workflows/` and the data directory's
    `workflows/`; the workspace wins a name clash), each with its parameter schema, source file and
    errors.

    Args:
        context (UUID | Unset): Identifies one context (conversation).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | WorkflowList]
    """

    kwargs = _get_kwargs(
        context=context,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    context: UUID | Unset = UNSET,
) -> ApiError | WorkflowList | None:
    """Workflow definitions a context can use (its workspace's `.braid/workflows/` and the data directory's
    `workflows/`; the workspace wins a name clash), each with its parameter schema, source file and
    errors.

    Args:
        context (UUID | Unset): Identifies one context (conversation).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | WorkflowList
    """

    return sync_detailed(
        client=client,
        context=context,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    context: UUID | Unset = UNSET,
) -> Response[ApiError | WorkflowList]:
    """Workflow definitions a context can use (its workspace's `.braid/workflows/` and the data directory's
    `workflows/`; the workspace wins a name clash), each with its parameter schema, source file and
    errors.

    Args:
        context (UUID | Unset): Identifies one context (conversation).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | WorkflowList]
    """

    kwargs = _get_kwargs(
        context=context,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    context: UUID | Unset = UNSET,
) -> ApiError | WorkflowList | None:
    """Workflow definitions a context can use (its workspace's `.braid/workflows/` and the data directory's
    `workflows/`; the workspace wins a name clash), each with its parameter schema, source file and
    errors.

    Args:
        context (UUID | Unset): Identifies one context (conversation).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | WorkflowList
    """

    return (
        await asyncio_detailed(
            client=client,
            context=context,
        )
    ).parsed
