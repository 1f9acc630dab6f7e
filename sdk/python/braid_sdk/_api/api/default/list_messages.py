from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.kind_name import KindName
from ...models.message_list import MessageList
from ...models.message_view import MessageView
from ...models.page_from import PageFrom
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    after: UUID | Unset = UNSET,
    before: UUID | Unset = UNSET,
    branch: str | Unset = UNSET,
    from_: PageFrom | Unset = UNSET,
    kind: KindName | Unset = UNSET,
    limit: int | Unset = UNSET,
    view: MessageView | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_after: str | Unset = UNSET
    if not isinstance(after, Unset):
        json_after = str(after)
    params["after"] = json_after

    json_before: str | Unset = UNSET
    if not isinstance(before, Unset):
        json_before = str(before)
    params["before"] = json_before

    params["branch"] = branch

    json_from_: str | Unset = UNSET
    if not isinstance(from_, Unset):
        json_from_ = from_.value

    params["from"] = json_from_

    json_kind: str | Unset = UNSET
    if not isinstance(kind, Unset):
        json_kind = kind.value

    params["kind"] = json_kind

    params["limit"] = limit

    json_view: str | Unset = UNSET
    if not isinstance(view, Unset):
        json_view = view.value

    params["view"] = json_view

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/contexts/{id}/messages".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | MessageList:
    if response.status_code == 200:
        response_200 = MessageList.from_dict(response.json())

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
) -> Response[ApiError | MessageList]:
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
    after: UUID | Unset = UNSET,
    before: UUID | Unset = UNSET,
    branch: str | Unset = UNSET,
    from_: PageFrom | Unset = UNSET,
    kind: KindName | Unset = UNSET,
    limit: int | Unset = UNSET,
    view: MessageView | Unset = UNSET,
) -> Response[ApiError | MessageList]:
    """Messages of a branch; `view=optimized` is what the model would be sent.

    Args:
        id (UUID): Identifies one context (conversation).
        after (UUID | Unset): Identifies one message in a context's pool, across all of its
            branches.
        before (UUID | Unset): Identifies one message in a context's pool, across all of its
            branches.
        branch (str | Unset): The name of a branch within a context, unique in that context
            (`main` by default).
        from_ (PageFrom | Unset): Where a message listing's page starts when it names no message
            to page from.
            - `start`: The oldest messages first; `next_after` pages forward.
            - `end`: The newest messages (still listed oldest first); `next_before` pages back. What a
            reader opening a long conversation wants first.
        kind (KindName | Unset): The name of a kind without its data: for store columns, filters
            and events.
            - `text`: `text`
            - `image`: `image`
            - `file_reference`: `file_reference`
            - `project_structure`: `project_structure`
            - `tool_request`: `tool_request`
            - `tool_result`: `tool_result`
            - `mcp_tool_request`: `mcp_tool_request`
            - `mcp_tool_result`: `mcp_tool_result`
            - `mcp_resource`: `mcp_resource`
            - `workflow_execution`: `workflow_execution`
            - `system_control`: `system_control`
            - `processing`: `processing`
            - `plan`: `plan`
            - `question`: `question`
            - `unknown`: A kind this version does not know.
        limit (int | Unset): At most this many (default 100, at most 1000).
        view (MessageView | Unset): Which history a message listing shows.
            - `full`: Every stored message of the branch.
            - `optimized`: Exactly what the model would be sent, with markers where history was
            summarized.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | MessageList]
    """

    kwargs = _get_kwargs(
        id=id,
        after=after,
        before=before,
        branch=branch,
        from_=from_,
        kind=kind,
        limit=limit,
        view=view,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    after: UUID | Unset = UNSET,
    before: UUID | Unset = UNSET,
    branch: str | Unset = UNSET,
    from_: PageFrom | Unset = UNSET,
    kind: KindName | Unset = UNSET,
    limit: int | Unset = UNSET,
    view: MessageView | Unset = UNSET,
) -> ApiError | MessageList | None:
    """Messages of a branch; `view=optimized` is what the model would be sent.

    Args:
        id (UUID): Identifies one context (conversation).
        after (UUID | Unset): Identifies one message in a context's pool, across all of its
            branches.
        before (UUID | Unset): Identifies one message in a context's pool, across all of its
            branches.
        branch (str | Unset): The name of a branch within a context, unique in that context
            (`main` by default).
        from_ (PageFrom | Unset): Where a message listing's page starts when it names no message
            to page from.
            - `start`: The oldest messages first; `next_after` pages forward.
            - `end`: The newest messages (still listed oldest first); `next_before` pages back. What a
            reader opening a long conversation wants first.
        kind (KindName | Unset): The name of a kind without its data: for store columns, filters
            and events.
            - `text`: `text`
            - `image`: `image`
            - `file_reference`: `file_reference`
            - `project_structure`: `project_structure`
            - `tool_request`: `tool_request`
            - `tool_result`: `tool_result`
            - `mcp_tool_request`: `mcp_tool_request`
            - `mcp_tool_result`: `mcp_tool_result`
            - `mcp_resource`: `mcp_resource`
            - `workflow_execution`: `workflow_execution`
            - `system_control`: `system_control`
            - `processing`: `processing`
            - `plan`: `plan`
            - `question`: `question`
            - `unknown`: A kind this version does not know.
        limit (int | Unset): At most this many (default 100, at most 1000).
        view (MessageView | Unset): Which history a message listing shows.
            - `full`: Every stored message of the branch.
            - `optimized`: Exactly what the model would be sent, with markers where history was
            summarized.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | MessageList
    """

    return sync_detailed(
        id=id,
        client=client,
        after=after,
        before=before,
        branch=branch,
        from_=from_,
        kind=kind,
        limit=limit,
        view=view,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    after: UUID | Unset = UNSET,
    before: UUID | Unset = UNSET,
    branch: str | Unset = UNSET,
    from_: PageFrom | Unset = UNSET,
    kind: KindName | Unset = UNSET,
    limit: int | Unset = UNSET,
    view: MessageView | Unset = UNSET,
) -> Response[ApiError | MessageList]:
    """Messages of a branch; `view=optimized` is what the model would be sent.

    Args:
        id (UUID): Identifies one context (conversation).
        after (UUID | Unset): Identifies one message in a context's pool, across all of its
            branches.
        before (UUID | Unset): Identifies one message in a context's pool, across all of its
            branches.
        branch (str | Unset): The name of a branch within a context, unique in that context
            (`main` by default).
        from_ (PageFrom | Unset): Where a message listing's page starts when it names no message
            to page from.
            - `start`: The oldest messages first; `next_after` pages forward.
            - `end`: The newest messages (still listed oldest first); `next_before` pages back. What a
            reader opening a long conversation wants first.
        kind (KindName | Unset): The name of a kind without its data: for store columns, filters
            and events.
            - `text`: `text`
            - `image`: `image`
            - `file_reference`: `file_reference`
            - `project_structure`: `project_structure`
            - `tool_request`: `tool_request`
            - `tool_result`: `tool_result`
            - `mcp_tool_request`: `mcp_tool_request`
            - `mcp_tool_result`: `mcp_tool_result`
            - `mcp_resource`: `mcp_resource`
            - `workflow_execution`: `workflow_execution`
            - `system_control`: `system_control`
            - `processing`: `processing`
            - `plan`: `plan`
            - `question`: `question`
            - `unknown`: A kind this version does not know.
        limit (int | Unset): At most this many (default 100, at most 1000).
        view (MessageView | Unset): Which history a message listing shows.
            - `full`: Every stored message of the branch.
            - `optimized`: Exactly what the model would be sent, with markers where history was
            summarized.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | MessageList]
    """

    kwargs = _get_kwargs(
        id=id,
        after=after,
        before=before,
        branch=branch,
        from_=from_,
        kind=kind,
        limit=limit,
        view=view,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    after: UUID | Unset = UNSET,
    before: UUID | Unset = UNSET,
    branch: str | Unset = UNSET,
    from_: PageFrom | Unset = UNSET,
    kind: KindName | Unset = UNSET,
    limit: int | Unset = UNSET,
    view: MessageView | Unset = UNSET,
) -> ApiError | MessageList | None:
    """Messages of a branch; `view=optimized` is what the model would be sent.

    Args:
        id (UUID): Identifies one context (conversation).
        after (UUID | Unset): Identifies one message in a context's pool, across all of its
            branches.
        before (UUID | Unset): Identifies one message in a context's pool, across all of its
            branches.
        branch (str | Unset): The name of a branch within a context, unique in that context
            (`main` by default).
        from_ (PageFrom | Unset): Where a message listing's page starts when it names no message
            to page from.
            - `start`: The oldest messages first; `next_after` pages forward.
            - `end`: The newest messages (still listed oldest first); `next_before` pages back. What a
            reader opening a long conversation wants first.
        kind (KindName | Unset): The name of a kind without its data: for store columns, filters
            and events.
            - `text`: `text`
            - `image`: `image`
            - `file_reference`: `file_reference`
            - `project_structure`: `project_structure`
            - `tool_request`: `tool_request`
            - `tool_result`: `tool_result`
            - `mcp_tool_request`: `mcp_tool_request`
            - `mcp_tool_result`: `mcp_tool_result`
            - `mcp_resource`: `mcp_resource`
            - `workflow_execution`: `workflow_execution`
            - `system_control`: `system_control`
            - `processing`: `processing`
            - `plan`: `plan`
            - `question`: `question`
            - `unknown`: A kind this version does not know.
        limit (int | Unset): At most this many (default 100, at most 1000).
        view (MessageView | Unset): Which history a message listing shows.
            - `full`: Every stored message of the branch.
            - `optimized`: Exactly what the model would be sent, with markers where history was
            summarized.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | MessageList
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            after=after,
            before=before,
            branch=branch,
            from_=from_,
            kind=kind,
            limit=limit,
            view=view,
        )
    ).parsed
