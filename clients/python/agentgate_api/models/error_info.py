from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.error_kind import ErrorKind, check_error_kind
from ..models.error_source import ErrorSource, check_error_source
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tool_error_code import ToolErrorCode


T = TypeVar("T", bound="ErrorInfo")


@_attrs_define
class ErrorInfo:
    """A classified error: the body of an `error` event, and the source of the
    envelope's `error`, `error_type` and `recoverable` fields.

        Attributes:
            kind (ErrorKind): What went wrong, in one word every provider maps onto.

                Each kind has a fixed `recoverable` default ([`ErrorKind::recoverable`]):
                recoverable means another provider, or the same one later, may succeed
                with the same request, so failover and retries are worth it.

                | kind | recoverable | why |
                |---|---|---|
                | `timeout` | yes | the wall-clock deadline passed; a faster provider or a calmer moment may make it |
                | `idle_timeout` | yes | the agent went silent; usually a stalled stream |
                | `quota` | yes | a usage limit is exhausted; another provider, or this one after `reset_at` |
                | `rate_limit` | yes | too many requests; wait `retry_after_s` or fail over |
                | `overloaded` | yes | the provider is overloaded (HTTP 529/503) |
                | `invalid_model` | yes | this provider does not know the model; the next agent of a chain names its own model |
                | `invalid_session` | no | the session to resume is gone; no other provider has it (agentgate recreates a
                vanished session itself when allowed, see the envelope's `session_recreated`) |
                | `invalid_input` | no | the request itself is wrong; it fails everywhere |
                | `auth` | no | the provider rejected the credentials; a human has to log in again |
                | `credential_unavailable` | yes | no usable credentials for this provider here (not logged in, key missing);
                another provider or machine may have them |
                | `network` | yes | the provider could not be reached |
                | `context_overflow` | no | the conversation no longer fits the model's context; it needs compaction or a
                smaller prompt |
                | `invalid_output` | yes | the answer failed the caller's JSON Schema; another try may produce a valid one |
                | `user_input_requested` | yes | the agent asked its user a question (a CLI's ask tool), which nobody answers in
                an unattended run; stopped at once, and another agent may not ask |
                | `cancelled` | no | the caller cancelled the run |
                | `provider_error` | yes | the provider failed on its side (HTTP 5xx, a crash) |
                | `session_busy` | yes | another run holds the `--session` (refused with `--session-busy fail`, or waited for
                past the timeout); later it is free |
                | `tool_error` | no | a deterministic tool (`agentgate tool`) failed; its error code's registry entry says
                whether a retry may help, and the envelope's `recoverable` carries that |
                | `policy` | no | the tool policy refused the tool before it started; change the policy or the manifest |
                | `max_turns` | no | the agent used the turns the caller allowed (`--max-turns`) without finishing; the same
                limit stops it again |
                | `budget` | no | the run passed a budget (`--max-cost`, `--max-tokens`, `budgets:`) and its CLI was stopped, a
                budget window was spent before it started (`reset_at`: when it starts again), or it crossed a limit on its model
                use (calls, tokens, model time) that its gateway enforces; the same request passes it again |
                | `unknown` | no | not classified; retrying blindly could repeat side effects |

                - `timeout`: The run's wall-clock deadline passed.
                - `idle_timeout`: The agent printed nothing for longer than the idle limit.
                - `quota`: A usage limit (plan, credits, daily quota) is exhausted.
                - `rate_limit`: Too many requests in a short time (HTTP 429 without exhausted quota).
                - `overloaded`: The provider is overloaded.
                - `invalid_model`: The provider does not know or does not offer the model.
                - `invalid_session`: The session to resume does not exist (any more).
                - `invalid_input`: The request is invalid (bad arguments, unreadable prompt, bad schema).
                - `auth`: The provider rejected the credentials.
                - `credential_unavailable`: No usable credentials for the provider on this machine.
                - `network`: The provider could not be reached.
                - `context_overflow`: The prompt or conversation exceeds the model's context window.
                - `invalid_output`: The answer does not match the caller's JSON Schema.
                - `user_input_requested`: The agent asked its user a question, which nobody answers.
                - `cancelled`: The run was cancelled.
                - `provider_error`: The provider failed on its side.
                - `session_busy`: Another run holds the session the run asked for.
                - `tool_error`: A deterministic tool failed (see the tool envelope's `code`).
                - `policy`: The tool policy refused the tool before it started.
                - `max_turns`: The agent reached the caller's limit on turns (`--max-turns`).
                - `budget`: The run crossed one of its limits on model use (model calls, input
                or output tokens, wall time of model calls), enforced by its gateway.
                - `unknown`: Not classified.
            message (str): Human-readable message, usually the provider's own words.
            recoverable (bool): Whether another provider or a later retry may succeed. Starts as
                `kind.recoverable()`; structured provider data may override it (e.g.
                opencode's `isRetryable`).
            source (ErrorSource): Which evidence classified an error, strongest first.

                - `structured`: The provider's structured error fields (Claude's `api_error_status`,
                Codex `turn.failed`, opencode's `statusCode`).
                - `exit_status`: The provider CLI's exit status.
                - `pattern`: A text pattern matched the provider's output.
                - `internal`: agentgate raised it itself: a deadline, a cancellation, a request it
                refused, an answer that failed the caller's schema.
            exit_code (int | None | Unset): Exit status of the provider CLI, if it exited.
            provider_status (int | None | Unset): HTTP status of the failed provider request, if known.
            reset_at (datetime.datetime | None | Unset): When the exhausted limit resets: RFC 3339, UTC.
            retry_after_s (int | None | Unset): Seconds to wait before retrying, when the provider said.
            tool (None | ToolErrorCode | Unset): A tool run's error code and hint.
    """

    kind: ErrorKind
    message: str
    recoverable: bool
    source: ErrorSource
    exit_code: int | None | Unset = UNSET
    provider_status: int | None | Unset = UNSET
    reset_at: datetime.datetime | None | Unset = UNSET
    retry_after_s: int | None | Unset = UNSET
    tool: None | ToolErrorCode | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.tool_error_code import ToolErrorCode

        kind: str = self.kind

        message = self.message

        recoverable = self.recoverable

        source: str = self.source

        exit_code: int | None | Unset
        if isinstance(self.exit_code, Unset):
            exit_code = UNSET
        else:
            exit_code = self.exit_code

        provider_status: int | None | Unset
        if isinstance(self.provider_status, Unset):
            provider_status = UNSET
        else:
            provider_status = self.provider_status

        reset_at: None | str | Unset
        if isinstance(self.reset_at, Unset):
            reset_at = UNSET
        elif isinstance(self.reset_at, datetime.datetime):
            reset_at = self.reset_at.isoformat()
        else:
            reset_at = self.reset_at

        retry_after_s: int | None | Unset
        if isinstance(self.retry_after_s, Unset):
            retry_after_s = UNSET
        else:
            retry_after_s = self.retry_after_s

        tool: dict[str, Any] | None | Unset
        if isinstance(self.tool, Unset):
            tool = UNSET
        elif isinstance(self.tool, ToolErrorCode):
            tool = self.tool.to_dict()
        else:
            tool = self.tool

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kind": kind,
                "message": message,
                "recoverable": recoverable,
                "source": source,
            }
        )
        if exit_code is not UNSET:
            field_dict["exit_code"] = exit_code
        if provider_status is not UNSET:
            field_dict["provider_status"] = provider_status
        if reset_at is not UNSET:
            field_dict["reset_at"] = reset_at
        if retry_after_s is not UNSET:
            field_dict["retry_after_s"] = retry_after_s
        if tool is not UNSET:
            field_dict["tool"] = tool

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.tool_error_code import ToolErrorCode

        d = dict(src_dict)
        kind = check_error_kind(d.pop("kind"))

        message = d.pop("message")

        recoverable = d.pop("recoverable")

        source = check_error_source(d.pop("source"))

        def _parse_exit_code(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        exit_code = _parse_exit_code(d.pop("exit_code", UNSET))

        def _parse_provider_status(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        provider_status = _parse_provider_status(d.pop("provider_status", UNSET))

        def _parse_reset_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reset_at_type_0 = datetime.datetime.fromisoformat(data)

                return reset_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        reset_at = _parse_reset_at(d.pop("reset_at", UNSET))

        def _parse_retry_after_s(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        retry_after_s = _parse_retry_after_s(d.pop("retry_after_s", UNSET))

        def _parse_tool(data: object) -> None | ToolErrorCode | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tool_type_0 = ToolErrorCode.from_dict(data)

                return tool_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ToolErrorCode | Unset, data)

        tool = _parse_tool(d.pop("tool", UNSET))

        error_info = cls(
            kind=kind,
            message=message,
            recoverable=recoverable,
            source=source,
            exit_code=exit_code,
            provider_status=provider_status,
            reset_at=reset_at,
            retry_after_s=retry_after_s,
            tool=tool,
        )

        error_info.additional_properties = d
        return error_info

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
