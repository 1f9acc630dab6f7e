from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.message_search_results import MessageSearchResults
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    limit: int | Unset = UNSET,
    q: str,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["q"] = q

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/search",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | MessageSearchResults:
    if response.status_code == 200:
        response_200 = MessageSearchResults.from_dict(response.json())

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
) -> Response[ApiError | MessageSearchResults]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    q: str,
) -> Response[ApiError | MessageSearchResults]:
    """Searches what people and the model wrote in every conversation: the text messages holding every word
    of `q` (each word matches the start of a word, in any case), best match first, each with its
    conversation, a branch showing it and a snippet. 422 names a query with no word, more than 16 words,
    or a word over 64 characters.

    Args:
        limit (int | Unset): At most this many hits (1 to 100; 20 when absent).
        q (str): The words to find (letters and digits; anything else separates words).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | MessageSearchResults]
    """

    kwargs = _get_kwargs(
        limit=limit,
        q=q,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    q: str,
) -> ApiError | MessageSearchResults | None:
    """Searches what people and the model wrote in every conversation: the text messages holding every word
    of `q` (each word matches the start of a word, in any case), best match first, each with its
    conversation, a branch showing it and a snippet. 422 names a query with no word, more than 16 words,
    or a word over 64 characters.

    Args:
        limit (int | Unset): At most this many hits (1 to 100; 20 when absent).
        q (str): The words to find (letters and digits; anything else separates words).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | MessageSearchResults
    """

    return sync_detailed(
        client=client,
        limit=limit,
        q=q,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    q: str,
) -> Response[ApiError | MessageSearchResults]:
    """Searches what people and the model wrote in every conversation: the text messages holding every word
    of `q` (each word matches the start of a word, in any case), best match first, each with its
    conversation, a branch showing it and a snippet. 422 names a query with no word, more than 16 words,
    or a word over 64 characters.

    Args:
        limit (int | Unset): At most this many hits (1 to 100; 20 when absent).
        q (str): The words to find (letters and digits; anything else separates words).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | MessageSearchResults]
    """

    kwargs = _get_kwargs(
        limit=limit,
        q=q,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    q: str,
) -> ApiError | MessageSearchResults | None:
    """Searches what people and the model wrote in every conversation: the text messages holding every word
    of `q` (each word matches the start of a word, in any case), best match first, each with its
    conversation, a branch showing it and a snippet. 422 names a query with no word, more than 16 words,
    or a word over 64 characters.

    Args:
        limit (int | Unset): At most this many hits (1 to 100; 20 when absent).
        q (str): The words to find (letters and digits; anything else separates words).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | MessageSearchResults
    """

    return (
        await asyncio_detailed(
            client=client,
            limit=limit,
            q=q,
        )
    ).parsed
