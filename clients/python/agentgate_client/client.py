"""`Agentgate`: the generated functions of `agentgate_api` behind one
bearer-token client, with an error answer raised as `ApiError` instead of
returned, the run operations by name, event following and waiting.

Any generated function can be called through `call` (or with `.api` as its
`client=`): `Agentgate.call(agentgate_api.api.usage.usage, ...)`.
"""

from __future__ import annotations

import json
import time
import typing
from typing import Any

import httpx

from agentgate_api import AuthenticatedClient
from agentgate_api.api.runs import answer, cancel, get_run, pending, submit

from .events import RunEvents

FINAL_STATES = ("succeeded", "failed", "cancelled", "abandoned")


class ApiError(Exception):
    """An error answer of the API: its HTTP status and the body's
    `{"error": {"type", "message", "field"}}` (type `unauthorized` with a
    401, `forbidden` with 403, `not_found` with 404, ...)."""

    def __init__(self, status: int, type: str | None, message: str, field: str | None = None) -> None:
        super().__init__(f"{status} {type or 'error'}: {message}")
        self.status = status
        self.type = type
        self.message = message
        self.field = field


class Agentgate:
    """A client of one `agentgate serve`: `Agentgate("http://host:8080", token)`."""

    def __init__(self, base_url: str, token: str, *, timeout: float = 30.0, **httpx_args: Any) -> None:
        self.api = AuthenticatedClient(
            base_url=base_url.rstrip("/"),
            token=token,
            timeout=httpx.Timeout(timeout),
            raise_on_unexpected_status=False,
            httpx_args=httpx_args,
        )

    def close(self) -> None:
        self.api.get_httpx_client().close()

    def __enter__(self) -> Agentgate:
        return self

    def __exit__(self, *args: object) -> None:
        self.close()

    # The generated functions, errors raised.

    def call(self, operation: Any, *args: Any, **kwargs: Any) -> Any:
        """`operation.sync_detailed(*args, client=..., **kwargs)`'s parsed
        answer; an answer of 400 or more raises `ApiError`."""
        response = operation.sync_detailed(*args, client=self.api, **kwargs)
        if response.status_code >= 400:
            raise self.error_of(int(response.status_code), response.content)
        return response.parsed

    @staticmethod
    def error_of(status: int, content: bytes) -> ApiError:
        """The `ApiError` of an error answer's status and body."""
        try:
            detail = json.loads(content)["error"]
            return ApiError(status, detail.get("type"), str(detail.get("message", "")), detail.get("field"))
        except (ValueError, KeyError, TypeError, AttributeError):
            text = content.decode("utf-8", errors="replace")[:500]
            return ApiError(status, None, text or "no error body")

    # Runs.

    def submit(self, request: Any) -> Any:
        """`POST /v1/runs`: the `RunAccepted` (`run_id`, `status`, ...). The
        request is the generated model, or a mapping read as its JSON
        (`{"prompt": "hi", "providers": ["claude"]}`)."""
        return self.call(submit, body=body_of(submit, request))

    def get_run(self, run_id: str) -> Any:
        """`GET /v1/runs/{id}`: the `RunView` (`status`, `envelope`, ...)."""
        return self.call(get_run, run_id)

    def cancel(self, run_id: str) -> Any:
        """`POST /v1/runs/{id}/cancel`: a queued run ends at once, a running
        one is stopped; the `RunAccepted` as it was when asked."""
        return self.call(cancel, run_id)

    def pending_approvals(self, run_id: str) -> list[str]:
        """`GET /v1/runs/{id}/approvals`: the request ids waiting for an answer."""
        return list(self.call(pending, run_id).pending)

    def answer(self, run_id: str, request_id: str, decision: str, message: str | None = None) -> Any:
        """`POST /v1/runs/{id}/approvals/{request_id}`: `allow` or `deny` (with
        `message`, given to the agent)."""
        body: dict[str, Any] = {"decision": decision}
        if message is not None:
            body["message"] = message
        return self.call(answer, run_id, request_id, body=body_of(answer, body))

    # What generation does not cover.

    def events(self, run_id: str, last_event_id: int | None = None, **options: Any) -> RunEvents:
        """The run's events to its end, resumed after a dropped connection
        (see `RunEvents`); `last_event_id` starts after that event."""
        return RunEvents(self, run_id, last_event_id, **options)

    def wait_for_run(self, run_id: str, timeout: float | None = None) -> Any:
        """The run's `RunView` once it ended (succeeded, failed, cancelled or
        abandoned): its events followed to their end, then the run read (a
        job that runs again is followed through). `RunTimeout` after
        `timeout` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        stream = self.events(run_id, deadline=deadline)
        while True:
            for _ in stream:
                pass
            run = self.get_run(run_id)
            if str(run.status) in FINAL_STATES:
                return run
            # The stream ended after a `result` the run outlived (it was
            # queued again just then): follow it on from there.
            stream = self.events(run_id, stream.last_event_id, deadline=deadline)


def body_of(operation: Any, value: Any) -> Any:
    """`value` as the body the generated `operation` takes. Where its `body`
    parameter names models, a model is passed as it is and a mapping is
    read by the first of them that reads it (a document may give a choice
    of schemas); where it takes any JSON (the generator's answer to some
    `oneOf`s), a model is passed as its JSON and a mapping as it is. Naming
    no model class here keeps this layer working whatever the generator
    makes of the document."""
    hint = typing.get_type_hints(operation.sync_detailed).get("body")
    candidates = [c for c in (typing.get_args(hint) or (hint,)) if hasattr(c, "from_dict")]
    if not candidates:
        return value.to_dict() if hasattr(value, "to_dict") else dict(value)
    if hasattr(value, "to_dict"):
        return value
    errors = []
    for model in candidates:
        try:
            return model.from_dict(dict(value))
        except (KeyError, TypeError, ValueError) as e:
            errors.append(f"{model.__name__}: {e!r}")
    raise TypeError(f"the body does not fit {operation.__name__}'s request ({'; '.join(errors)})")
