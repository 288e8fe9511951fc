from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.usage_by import UsageBy
from ...models.usage_report_view import UsageReportView
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    by: UsageBy | Unset = UNSET,
    group: str | Unset = UNSET,
    since: Any | Unset = UNSET,
    until: Any | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_by: str | Unset = UNSET
    if not isinstance(by, Unset):
        json_by = by

    params["by"] = json_by

    params["group"] = group

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

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/usage",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | UsageReportView | None:
    if response.status_code == 200:
        response_200 = UsageReportView.from_dict(response.json())

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
) -> Response[ErrorBody | UsageReportView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    by: UsageBy | Unset = UNSET,
    group: str | Unset = UNSET,
    since: Any | Unset = UNSET,
    until: Any | Unset = UNSET,
) -> Response[ErrorBody | UsageReportView]:
    """`GET /v1/usage`: what the stored runs spent.

     Needs the `read` scope.

    Args:
        by (UsageBy | Unset):
        group (str | Unset):
        since (Any | Unset):
        until (Any | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | UsageReportView]
    """

    kwargs = _get_kwargs(
        by=by,
        group=group,
        since=since,
        until=until,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    by: UsageBy | Unset = UNSET,
    group: str | Unset = UNSET,
    since: Any | Unset = UNSET,
    until: Any | Unset = UNSET,
) -> ErrorBody | UsageReportView | None:
    """`GET /v1/usage`: what the stored runs spent.

     Needs the `read` scope.

    Args:
        by (UsageBy | Unset):
        group (str | Unset):
        since (Any | Unset):
        until (Any | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | UsageReportView
    """

    return sync_detailed(
        client=client,
        by=by,
        group=group,
        since=since,
        until=until,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    by: UsageBy | Unset = UNSET,
    group: str | Unset = UNSET,
    since: Any | Unset = UNSET,
    until: Any | Unset = UNSET,
) -> Response[ErrorBody | UsageReportView]:
    """`GET /v1/usage`: what the stored runs spent.

     Needs the `read` scope.

    Args:
        by (UsageBy | Unset):
        group (str | Unset):
        since (Any | Unset):
        until (Any | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | UsageReportView]
    """

    kwargs = _get_kwargs(
        by=by,
        group=group,
        since=since,
        until=until,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    by: UsageBy | Unset = UNSET,
    group: str | Unset = UNSET,
    since: Any | Unset = UNSET,
    until: Any | Unset = UNSET,
) -> ErrorBody | UsageReportView | None:
    """`GET /v1/usage`: what the stored runs spent.

     Needs the `read` scope.

    Args:
        by (UsageBy | Unset):
        group (str | Unset):
        since (Any | Unset):
        until (Any | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | UsageReportView
    """

    return (
        await asyncio_detailed(
            client=client,
            by=by,
            group=group,
            since=since,
            until=until,
        )
    ).parsed
