from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.run_accepted import RunAccepted
from ...models.workflow_from_file import WorkflowFromFile
from ...models.workflow_with_definition import WorkflowWithDefinition
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: WorkflowFromFile | WorkflowWithDefinition,
    traceparent: None | str | Unset = UNSET,
    tracestate: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(traceparent, Unset):
        headers["traceparent"] = traceparent

    if not isinstance(tracestate, Unset):
        headers["tracestate"] = tracestate

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/workflows",
    }

    if isinstance(body, WorkflowWithDefinition):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | RunAccepted | None:
    if response.status_code == 200:
        response_200 = RunAccepted.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = RunAccepted.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())

        return response_403

    if response.status_code == 413:
        response_413 = ErrorBody.from_dict(response.json())

        return response_413

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
) -> Response[ErrorBody | RunAccepted]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: WorkflowFromFile | WorkflowWithDefinition,
    traceparent: None | str | Unset = UNSET,
    tracestate: None | str | Unset = UNSET,
) -> Response[ErrorBody | RunAccepted]:
    """`POST /v1/workflows`: queue a workflow.

     Needs the `submit` scope.

    Args:
        traceparent (None | str | Unset):
        tracestate (None | str | Unset):
        body (WorkflowFromFile | WorkflowWithDefinition): A workflow: `workflow` (its text, YAML
            or JSON, or the workflow as a JSON object) with `base_dir` (the absolute folder its
            relative paths are found from), or `file` (the absolute path of a workflow file on the
            server's machine) alone; then its input and the queue's fields. `base_dir` and `file` must
            lie in the server's folders (the folder it was started in, its config file's folder).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RunAccepted]
    """

    kwargs = _get_kwargs(
        body=body,
        traceparent=traceparent,
        tracestate=tracestate,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: WorkflowFromFile | WorkflowWithDefinition,
    traceparent: None | str | Unset = UNSET,
    tracestate: None | str | Unset = UNSET,
) -> ErrorBody | RunAccepted | None:
    """`POST /v1/workflows`: queue a workflow.

     Needs the `submit` scope.

    Args:
        traceparent (None | str | Unset):
        tracestate (None | str | Unset):
        body (WorkflowFromFile | WorkflowWithDefinition): A workflow: `workflow` (its text, YAML
            or JSON, or the workflow as a JSON object) with `base_dir` (the absolute folder its
            relative paths are found from), or `file` (the absolute path of a workflow file on the
            server's machine) alone; then its input and the queue's fields. `base_dir` and `file` must
            lie in the server's folders (the folder it was started in, its config file's folder).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RunAccepted
    """

    return sync_detailed(
        client=client,
        body=body,
        traceparent=traceparent,
        tracestate=tracestate,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: WorkflowFromFile | WorkflowWithDefinition,
    traceparent: None | str | Unset = UNSET,
    tracestate: None | str | Unset = UNSET,
) -> Response[ErrorBody | RunAccepted]:
    """`POST /v1/workflows`: queue a workflow.

     Needs the `submit` scope.

    Args:
        traceparent (None | str | Unset):
        tracestate (None | str | Unset):
        body (WorkflowFromFile | WorkflowWithDefinition): A workflow: `workflow` (its text, YAML
            or JSON, or the workflow as a JSON object) with `base_dir` (the absolute folder its
            relative paths are found from), or `file` (the absolute path of a workflow file on the
            server's machine) alone; then its input and the queue's fields. `base_dir` and `file` must
            lie in the server's folders (the folder it was started in, its config file's folder).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RunAccepted]
    """

    kwargs = _get_kwargs(
        body=body,
        traceparent=traceparent,
        tracestate=tracestate,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: WorkflowFromFile | WorkflowWithDefinition,
    traceparent: None | str | Unset = UNSET,
    tracestate: None | str | Unset = UNSET,
) -> ErrorBody | RunAccepted | None:
    """`POST /v1/workflows`: queue a workflow.

     Needs the `submit` scope.

    Args:
        traceparent (None | str | Unset):
        tracestate (None | str | Unset):
        body (WorkflowFromFile | WorkflowWithDefinition): A workflow: `workflow` (its text, YAML
            or JSON, or the workflow as a JSON object) with `base_dir` (the absolute folder its
            relative paths are found from), or `file` (the absolute path of a workflow file on the
            server's machine) alone; then its input and the queue's fields. `base_dir` and `file` must
            lie in the server's folders (the folder it was started in, its config file's folder).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RunAccepted
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            traceparent=traceparent,
            tracestate=tracestate,
        )
    ).parsed
