from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delivery_list import DeliveryList
from ...models.error_body import ErrorBody
from ...models.v1_webhook_deliveries_status import (
    V1WebhookDeliveriesStatus,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    status: V1WebhookDeliveriesStatus | Unset = UNSET,
    event: str | Unset = UNSET,
    url_query: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status

    params["status"] = json_status

    params["event"] = event

    params["url"] = url_query

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/webhooks/deliveries",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DeliveryList | ErrorBody | None:
    if response.status_code == 200:
        response_200 = DeliveryList.from_dict(response.json())

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
) -> Response[DeliveryList | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    status: V1WebhookDeliveriesStatus | Unset = UNSET,
    event: str | Unset = UNSET,
    url_query: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> Response[DeliveryList | ErrorBody]:
    """`GET /v1/webhooks/deliveries`: the webhook deliveries and their tries.

     Needs the `admin` scope.

    Args:
        status (V1WebhookDeliveriesStatus | Unset):
        event (str | Unset):
        url_query (str | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeliveryList | ErrorBody]
    """

    kwargs = _get_kwargs(
        status=status,
        event=event,
        url_query=url_query,
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
    status: V1WebhookDeliveriesStatus | Unset = UNSET,
    event: str | Unset = UNSET,
    url_query: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> DeliveryList | ErrorBody | None:
    """`GET /v1/webhooks/deliveries`: the webhook deliveries and their tries.

     Needs the `admin` scope.

    Args:
        status (V1WebhookDeliveriesStatus | Unset):
        event (str | Unset):
        url_query (str | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeliveryList | ErrorBody
    """

    return sync_detailed(
        client=client,
        status=status,
        event=event,
        url_query=url_query,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    status: V1WebhookDeliveriesStatus | Unset = UNSET,
    event: str | Unset = UNSET,
    url_query: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> Response[DeliveryList | ErrorBody]:
    """`GET /v1/webhooks/deliveries`: the webhook deliveries and their tries.

     Needs the `admin` scope.

    Args:
        status (V1WebhookDeliveriesStatus | Unset):
        event (str | Unset):
        url_query (str | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeliveryList | ErrorBody]
    """

    kwargs = _get_kwargs(
        status=status,
        event=event,
        url_query=url_query,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    status: V1WebhookDeliveriesStatus | Unset = UNSET,
    event: str | Unset = UNSET,
    url_query: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> DeliveryList | ErrorBody | None:
    """`GET /v1/webhooks/deliveries`: the webhook deliveries and their tries.

     Needs the `admin` scope.

    Args:
        status (V1WebhookDeliveriesStatus | Unset):
        event (str | Unset):
        url_query (str | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeliveryList | ErrorBody
    """

    return (
        await asyncio_detailed(
            client=client,
            status=status,
            event=event,
            url_query=url_query,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
