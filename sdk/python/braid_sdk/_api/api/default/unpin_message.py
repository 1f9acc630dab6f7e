from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.message_file_reference import MessageFileReference
from ...models.message_image import MessageImage
from ...models.message_mcp_resource import MessageMcpResource
from ...models.message_mcp_tool_request import MessageMcpToolRequest
from ...models.message_mcp_tool_result import MessageMcpToolResult
from ...models.message_plan import MessagePlan
from ...models.message_processing import MessageProcessing
from ...models.message_project_structure import MessageProjectStructure
from ...models.message_question import MessageQuestion
from ...models.message_system_control import MessageSystemControl
from ...models.message_text import MessageText
from ...models.message_tool_request import MessageToolRequest
from ...models.message_tool_result import MessageToolResult
from ...models.message_workflow_execution import MessageWorkflowExecution
from ...types import Response


def _get_kwargs(
    id: UUID,
    message_id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/v1/contexts/{id}/messages/{message_id}/pin".format(
            id=quote(str(id), safe=""),
            message_id=quote(str(message_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ApiError
    | MessageFileReference
    | MessageImage
    | MessageMcpResource
    | MessageMcpToolRequest
    | MessageMcpToolResult
    | MessagePlan
    | MessageProcessing
    | MessageProjectStructure
    | MessageQuestion
    | MessageSystemControl
    | MessageText
    | MessageToolRequest
    | MessageToolResult
    | MessageWorkflowExecution
):
    if response.status_code == 200:

        def _parse_response_200(
            data: object,
        ) -> (
            MessageFileReference
            | MessageImage
            | MessageMcpResource
            | MessageMcpToolRequest
            | MessageMcpToolResult
            | MessagePlan
            | MessageProcessing
            | MessageProjectStructure
            | MessageQuestion
            | MessageSystemControl
            | MessageText
            | MessageToolRequest
            | MessageToolResult
            | MessageWorkflowExecution
        ):
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_type_0 = MessageText.from_dict(data)

                return componentsschemas_message_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_type_1 = MessageImage.from_dict(data)

                return componentsschemas_message_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_type_2 = MessageFileReference.from_dict(data)

                return componentsschemas_message_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_type_3 = MessageProjectStructure.from_dict(
                    data
                )

                return componentsschemas_message_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_type_4 = MessageToolRequest.from_dict(data)

                return componentsschemas_message_type_4
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_type_5 = MessageToolResult.from_dict(data)

                return componentsschemas_message_type_5
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_type_6 = MessageMcpToolRequest.from_dict(data)

                return componentsschemas_message_type_6
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_type_7 = MessageMcpToolResult.from_dict(data)

                return componentsschemas_message_type_7
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_type_8 = MessageMcpResource.from_dict(data)

                return componentsschemas_message_type_8
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_type_9 = MessageWorkflowExecution.from_dict(
                    data
                )

                return componentsschemas_message_type_9
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_type_10 = MessageSystemControl.from_dict(data)

                return componentsschemas_message_type_10
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_type_11 = MessageProcessing.from_dict(data)

                return componentsschemas_message_type_11
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_type_12 = MessagePlan.from_dict(data)

                return componentsschemas_message_type_12
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_message_type_13 = MessageQuestion.from_dict(data)

            return componentsschemas_message_type_13

        response_200 = _parse_response_200(response.json())

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
) -> Response[
    ApiError
    | MessageFileReference
    | MessageImage
    | MessageMcpResource
    | MessageMcpToolRequest
    | MessageMcpToolResult
    | MessagePlan
    | MessageProcessing
    | MessageProjectStructure
    | MessageQuestion
    | MessageSystemControl
    | MessageText
    | MessageToolRequest
    | MessageToolResult
    | MessageWorkflowExecution
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    message_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[
    ApiError
    | MessageFileReference
    | MessageImage
    | MessageMcpResource
    | MessageMcpToolRequest
    | MessageMcpToolResult
    | MessagePlan
    | MessageProcessing
    | MessageProjectStructure
    | MessageQuestion
    | MessageSystemControl
    | MessageText
    | MessageToolRequest
    | MessageToolResult
    | MessageWorkflowExecution
]:
    """Unpins a message: it is under the optimization strategy again. Answers the message.

    Args:
        id (UUID): Identifies one context (conversation).
        message_id (UUID): Identifies one message in a context's pool, across all of its branches.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | MessageFileReference | MessageImage | MessageMcpResource | MessageMcpToolRequest | MessageMcpToolResult | MessagePlan | MessageProcessing | MessageProjectStructure | MessageQuestion | MessageSystemControl | MessageText | MessageToolRequest | MessageToolResult | MessageWorkflowExecution]
    """

    kwargs = _get_kwargs(
        id=id,
        message_id=message_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    message_id: UUID,
    *,
    client: AuthenticatedClient,
) -> (
    ApiError
    | MessageFileReference
    | MessageImage
    | MessageMcpResource
    | MessageMcpToolRequest
    | MessageMcpToolResult
    | MessagePlan
    | MessageProcessing
    | MessageProjectStructure
    | MessageQuestion
    | MessageSystemControl
    | MessageText
    | MessageToolRequest
    | MessageToolResult
    | MessageWorkflowExecution
    | None
):
    """Unpins a message: it is under the optimization strategy again. Answers the message.

    Args:
        id (UUID): Identifies one context (conversation).
        message_id (UUID): Identifies one message in a context's pool, across all of its branches.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | MessageFileReference | MessageImage | MessageMcpResource | MessageMcpToolRequest | MessageMcpToolResult | MessagePlan | MessageProcessing | MessageProjectStructure | MessageQuestion | MessageSystemControl | MessageText | MessageToolRequest | MessageToolResult | MessageWorkflowExecution
    """

    return sync_detailed(
        id=id,
        message_id=message_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    message_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[
    ApiError
    | MessageFileReference
    | MessageImage
    | MessageMcpResource
    | MessageMcpToolRequest
    | MessageMcpToolResult
    | MessagePlan
    | MessageProcessing
    | MessageProjectStructure
    | MessageQuestion
    | MessageSystemControl
    | MessageText
    | MessageToolRequest
    | MessageToolResult
    | MessageWorkflowExecution
]:
    """Unpins a message: it is under the optimization strategy again. Answers the message.

    Args:
        id (UUID): Identifies one context (conversation).
        message_id (UUID): Identifies one message in a context's pool, across all of its branches.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | MessageFileReference | MessageImage | MessageMcpResource | MessageMcpToolRequest | MessageMcpToolResult | MessagePlan | MessageProcessing | MessageProjectStructure | MessageQuestion | MessageSystemControl | MessageText | MessageToolRequest | MessageToolResult | MessageWorkflowExecution]
    """

    kwargs = _get_kwargs(
        id=id,
        message_id=message_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    message_id: UUID,
    *,
    client: AuthenticatedClient,
) -> (
    ApiError
    | MessageFileReference
    | MessageImage
    | MessageMcpResource
    | MessageMcpToolRequest
    | MessageMcpToolResult
    | MessagePlan
    | MessageProcessing
    | MessageProjectStructure
    | MessageQuestion
    | MessageSystemControl
    | MessageText
    | MessageToolRequest
    | MessageToolResult
    | MessageWorkflowExecution
    | None
):
    """Unpins a message: it is under the optimization strategy again. Answers the message.

    Args:
        id (UUID): Identifies one context (conversation).
        message_id (UUID): Identifies one message in a context's pool, across all of its branches.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | MessageFileReference | MessageImage | MessageMcpResource | MessageMcpToolRequest | MessageMcpToolResult | MessagePlan | MessageProcessing | MessageProjectStructure | MessageQuestion | MessageSystemControl | MessageText | MessageToolRequest | MessageToolResult | MessageWorkflowExecution
    """

    return (
        await asyncio_detailed(
            id=id,
            message_id=message_id,
            client=client,
        )
    ).parsed
