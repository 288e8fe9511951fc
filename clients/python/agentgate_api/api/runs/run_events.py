from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.run_events_coalesce import RunEventsCoalesce
from ...models.run_events_response_200 import RunEventsResponse200
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    coalesce: RunEventsCoalesce | Unset = UNSET,
    coalesce_min_interval: str | Unset = UNSET,
    coalesce_max_chars: int | Unset = UNSET,
    coalesce_idle: str | Unset = UNSET,
    last_event_id: int | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(last_event_id, Unset):
        headers["Last-Event-ID"] = last_event_id

    params: dict[str, Any] = {}

    json_coalesce: str | Unset = UNSET
    if not isinstance(coalesce, Unset):
        json_coalesce = coalesce

    params["coalesce"] = json_coalesce

    params["coalesce_min_interval"] = coalesce_min_interval

    params["coalesce_max_chars"] = coalesce_max_chars

    params["coalesce_idle"] = coalesce_idle

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/runs/{id}/events".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | RunEventsResponse200 | None:
    if response.status_code == 200:
        response_200 = RunEventsResponse200.from_dict(response.text)

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

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorBody | RunEventsResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    coalesce: RunEventsCoalesce | Unset = UNSET,
    coalesce_min_interval: str | Unset = UNSET,
    coalesce_max_chars: int | Unset = UNSET,
    coalesce_idle: str | Unset = UNSET,
    last_event_id: int | str | Unset = UNSET,
) -> Response[ErrorBody | RunEventsResponse200]:
    """`GET /v1/runs/{id}/events`: the run's events as Server-Sent Events,
    from the first or after `Last-Event-ID`, live until the `result` event.

     Needs the `read` scope.

    Args:
        id (str):
        coalesce (RunEventsCoalesce | Unset):
        coalesce_min_interval (str | Unset):
        coalesce_max_chars (int | Unset):
        coalesce_idle (str | Unset):
        last_event_id (int | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RunEventsResponse200]
    """

    kwargs = _get_kwargs(
        id=id,
        coalesce=coalesce,
        coalesce_min_interval=coalesce_min_interval,
        coalesce_max_chars=coalesce_max_chars,
        coalesce_idle=coalesce_idle,
        last_event_id=last_event_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    coalesce: RunEventsCoalesce | Unset = UNSET,
    coalesce_min_interval: str | Unset = UNSET,
    coalesce_max_chars: int | Unset = UNSET,
    coalesce_idle: str | Unset = UNSET,
    last_event_id: int | str | Unset = UNSET,
) -> ErrorBody | RunEventsResponse200 | None:
    """`GET /v1/runs/{id}/events`: the run's events as Server-Sent Events,
    from the first or after `Last-Event-ID`, live until the `result` event.

     Needs the `read` scope.

    Args:
        id (str):
        coalesce (RunEventsCoalesce | Unset):
        coalesce_min_interval (str | Unset):
        coalesce_max_chars (int | Unset):
        coalesce_idle (str | Unset):
        last_event_id (int | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RunEventsResponse200
    """

    return sync_detailed(
        id=id,
        client=client,
        coalesce=coalesce,
        coalesce_min_interval=coalesce_min_interval,
        coalesce_max_chars=coalesce_max_chars,
        coalesce_idle=coalesce_idle,
        last_event_id=last_event_id,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    coalesce: RunEventsCoalesce | Unset = UNSET,
    coalesce_min_interval: str | Unset = UNSET,
    coalesce_max_chars: int | Unset = UNSET,
    coalesce_idle: str | Unset = UNSET,
    last_event_id: int | str | Unset = UNSET,
) -> Response[ErrorBody | RunEventsResponse200]:
    """`GET /v1/runs/{id}/events`: the run's events as Server-Sent Events,
    from the first or after `Last-Event-ID`, live until the `result` event.

     Needs the `read` scope.

    Args:
        id (str):
        coalesce (RunEventsCoalesce | Unset):
        coalesce_min_interval (str | Unset):
        coalesce_max_chars (int | Unset):
        coalesce_idle (str | Unset):
        last_event_id (int | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RunEventsResponse200]
    """

    kwargs = _get_kwargs(
        id=id,
        coalesce=coalesce,
        coalesce_min_interval=coalesce_min_interval,
        coalesce_max_chars=coalesce_max_chars,
        coalesce_idle=coalesce_idle,
        last_event_id=last_event_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    coalesce: RunEventsCoalesce | Unset = UNSET,
    coalesce_min_interval: str | Unset = UNSET,
    coalesce_max_chars: int | Unset = UNSET,
    coalesce_idle: str | Unset = UNSET,
    last_event_id: int | str | Unset = UNSET,
) -> ErrorBody | RunEventsResponse200 | None:
    """`GET /v1/runs/{id}/events`: the run's events as Server-Sent Events,
    from the first or after `Last-Event-ID`, live until the `result` event.

     Needs the `read` scope.

    Args:
        id (str):
        coalesce (RunEventsCoalesce | Unset):
        coalesce_min_interval (str | Unset):
        coalesce_max_chars (int | Unset):
        coalesce_idle (str | Unset):
        last_event_id (int | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RunEventsResponse200
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            coalesce=coalesce,
            coalesce_min_interval=coalesce_min_interval,
            coalesce_max_chars=coalesce_max_chars,
            coalesce_idle=coalesce_idle,
            last_event_id=last_event_id,
        )
    ).parsed
