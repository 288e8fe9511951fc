from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.skill_row import SkillRow
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    provider: str | Unset = UNSET,
    cwd: str | Unset = UNSET,
    all_: bool | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["provider"] = provider

    params["cwd"] = cwd

    params["all"] = all_

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/skills",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | list[SkillRow] | None:
    if response.status_code == 200:
        response_200 = []
        _response_200 = response.json()
        for response_200_item_data in _response_200:
            response_200_item = SkillRow.from_dict(response_200_item_data)

            response_200.append(response_200_item)

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
) -> Response[ErrorBody | list[SkillRow]]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    provider: str | Unset = UNSET,
    cwd: str | Unset = UNSET,
    all_: bool | Unset = UNSET,
) -> Response[ErrorBody | list[SkillRow]]:
    """`GET /v1/skills`: the skills each provider's CLI can see.

     Needs the `read` scope.

    Args:
        provider (str | Unset):
        cwd (str | Unset):
        all_ (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | list[SkillRow]]
    """

    kwargs = _get_kwargs(
        provider=provider,
        cwd=cwd,
        all_=all_,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    provider: str | Unset = UNSET,
    cwd: str | Unset = UNSET,
    all_: bool | Unset = UNSET,
) -> ErrorBody | list[SkillRow] | None:
    """`GET /v1/skills`: the skills each provider's CLI can see.

     Needs the `read` scope.

    Args:
        provider (str | Unset):
        cwd (str | Unset):
        all_ (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | list[SkillRow]
    """

    return sync_detailed(
        client=client,
        provider=provider,
        cwd=cwd,
        all_=all_,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    provider: str | Unset = UNSET,
    cwd: str | Unset = UNSET,
    all_: bool | Unset = UNSET,
) -> Response[ErrorBody | list[SkillRow]]:
    """`GET /v1/skills`: the skills each provider's CLI can see.

     Needs the `read` scope.

    Args:
        provider (str | Unset):
        cwd (str | Unset):
        all_ (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | list[SkillRow]]
    """

    kwargs = _get_kwargs(
        provider=provider,
        cwd=cwd,
        all_=all_,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    provider: str | Unset = UNSET,
    cwd: str | Unset = UNSET,
    all_: bool | Unset = UNSET,
) -> ErrorBody | list[SkillRow] | None:
    """`GET /v1/skills`: the skills each provider's CLI can see.

     Needs the `read` scope.

    Args:
        provider (str | Unset):
        cwd (str | Unset):
        all_ (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | list[SkillRow]
    """

    return (
        await asyncio_detailed(
            client=client,
            provider=provider,
            cwd=cwd,
            all_=all_,
        )
    ).parsed
