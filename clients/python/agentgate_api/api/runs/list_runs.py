from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.list_runs_status import ListRunsStatus
from ...models.run_page import RunPage
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    status: ListRunsStatus | Unset = UNSET,
    provider: str | Unset = UNSET,
    session: str | Unset = UNSET,
    label: str | Unset = UNSET,
    since: Any | Unset = UNSET,
    until: Any | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status

    params["status"] = json_status

    params["provider"] = provider

    params["session"] = session

    params["label"] = label

    json_since: Any | Unset
    if isinstance(since, Unset):
        json_since = UNSET
    else:
        json_since = since
    params["since"] = json_since

    json_until: Any | Unset
    if isinstance(until, Unset):
        json_until = UNSET
    else:
        json_until = until
    params["until"] = json_until

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/runs",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | RunPage | None:
    if response.status_code == 200:
        response_200 = RunPage.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())

        return response_403

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorBody | RunPage]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    status: ListRunsStatus | Unset = UNSET,
    provider: str | Unset = UNSET,
    session: str | Unset = UNSET,
    label: str | Unset = UNSET,
    since: Any | Unset = UNSET,
    until: Any | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> Response[ErrorBody | RunPage]:
    """`GET /v1/runs`: the runs, newest first, one page at a time.

     Needs the `read` scope.

    Args:
        status (ListRunsStatus | Unset):
        provider (str | Unset):
        session (str | Unset):
        label (str | Unset):
        since (Any | Unset):
        until (Any | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RunPage]
    """

    kwargs = _get_kwargs(
        status=status,
        provider=provider,
        session=session,
        label=label,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    status: ListRunsStatus | Unset = UNSET,
    provider: str | Unset = UNSET,
    session: str | Unset = UNSET,
    label: str | Unset = UNSET,
    since: Any | Unset = UNSET,
    until: Any | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> ErrorBody | RunPage | None:
    """`GET /v1/runs`: the runs, newest first, one page at a time.

     Needs the `read` scope.

    Args:
        status (ListRunsStatus | Unset):
        provider (str | Unset):
        session (str | Unset):
        label (str | Unset):
        since (Any | Unset):
        until (Any | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RunPage
    """

    return sync_detailed(
        client=client,
        status=status,
        provider=provider,
        session=session,
        label=label,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    status: ListRunsStatus | Unset = UNSET,
    provider: str | Unset = UNSET,
    session: str | Unset = UNSET,
    label: str | Unset = UNSET,
    since: Any | Unset = UNSET,
    until: Any | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> Response[ErrorBody | RunPage]:
    """`GET /v1/runs`: the runs, newest first, one page at a time.

     Needs the `read` scope.

    Args:
        status (ListRunsStatus | Unset):
        provider (str | Unset):
        session (str | Unset):
        label (str | Unset):
        since (Any | Unset):
        until (Any | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RunPage]
    """

    kwargs = _get_kwargs(
        status=status,
        provider=provider,
        session=session,
        label=label,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    status: ListRunsStatus | Unset = UNSET,
    provider: str | Unset = UNSET,
    session: str | Unset = UNSET,
    label: str | Unset = UNSET,
    since: Any | Unset = UNSET,
    until: Any | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> ErrorBody | RunPage | None:
    """`GET /v1/runs`: the runs, newest first, one page at a time.

     Needs the `read` scope.

    Args:
        status (ListRunsStatus | Unset):
        provider (str | Unset):
        session (str | Unset):
        label (str | Unset):
        since (Any | Unset):
        until (Any | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RunPage
    """

    return (
        await asyncio_detailed(
            client=client,
            status=status,
            provider=provider,
            session=session,
            label=label,
            since=since,
            until=until,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
