from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.approval_answer import ApprovalAnswer
from ...models.approval_answered import ApprovalAnswered
from ...models.error_body import ErrorBody
from ...types import Response


def _get_kwargs(
    id: str,
    request_id: str,
    *,
    body: ApprovalAnswer,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/runs/{id}/approvals/{request_id}".format(
            id=quote(str(id), safe=""),
            request_id=quote(str(request_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApprovalAnswered | ErrorBody | None:
    if response.status_code == 200:
        response_200 = ApprovalAnswered.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ApprovalAnswered | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    request_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: ApprovalAnswer,
) -> Response[ApprovalAnswered | ErrorBody]:
    """`POST /v1/runs/{id}/approvals/{request_id}`: allow or deny one request.

     Needs the `approve` scope.

    Args:
        id (str):
        request_id (str):
        body (ApprovalAnswer): A person's answer.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApprovalAnswered | ErrorBody]
    """

    kwargs = _get_kwargs(
        id=id,
        request_id=request_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    request_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: ApprovalAnswer,
) -> ApprovalAnswered | ErrorBody | None:
    """`POST /v1/runs/{id}/approvals/{request_id}`: allow or deny one request.

     Needs the `approve` scope.

    Args:
        id (str):
        request_id (str):
        body (ApprovalAnswer): A person's answer.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApprovalAnswered | ErrorBody
    """

    return sync_detailed(
        id=id,
        request_id=request_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    id: str,
    request_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: ApprovalAnswer,
) -> Response[ApprovalAnswered | ErrorBody]:
    """`POST /v1/runs/{id}/approvals/{request_id}`: allow or deny one request.

     Needs the `approve` scope.

    Args:
        id (str):
        request_id (str):
        body (ApprovalAnswer): A person's answer.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApprovalAnswered | ErrorBody]
    """

    kwargs = _get_kwargs(
        id=id,
        request_id=request_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    request_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: ApprovalAnswer,
) -> ApprovalAnswered | ErrorBody | None:
    """`POST /v1/runs/{id}/approvals/{request_id}`: allow or deny one request.

     Needs the `approve` scope.

    Args:
        id (str):
        request_id (str):
        body (ApprovalAnswer): A person's answer.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApprovalAnswered | ErrorBody
    """

    return (
        await asyncio_detailed(
            id=id,
            request_id=request_id,
            client=client,
            body=body,
        )
    ).parsed
