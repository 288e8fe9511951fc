from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tool_error_code import ToolErrorCode


T = TypeVar("T", bound="ErrorInfo")


@_attrs_define
class ErrorInfo:
    """A classified error: the body of an `error` event, and the source of the
    envelope's `error`, `error_type` and `recoverable` fields.

        Attributes:
            kind (Literal['auth'] | Literal['budget'] | Literal['cancelled'] | Literal['context_overflow'] |
                Literal['credential_unavailable'] | Literal['idle_timeout'] | Literal['invalid_input'] |
                Literal['invalid_model'] | Literal['invalid_output'] | Literal['invalid_session'] | Literal['max_turns'] |
                Literal['network'] | Literal['overloaded'] | Literal['policy'] | Literal['provider_error'] | Literal['quota'] |
                Literal['rate_limit'] | Literal['session_busy'] | Literal['timeout'] | Literal['tool_error'] |
                Literal['unknown'] | Literal['user_input_requested']): What went wrong, in one word every provider maps onto.

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
            message (str): Human-readable message, usually the provider's own words.
            recoverable (bool): Whether another provider or a later retry may succeed. Starts as
                `kind.recoverable()`; structured provider data may override it (e.g.
                opencode's `isRetryable`).
            source (Literal['exit_status'] | Literal['internal'] | Literal['pattern'] | Literal['structured']): Which
                evidence classified an error, strongest first.
            exit_code (int | None | Unset): Exit status of the provider CLI, if it exited.
            provider_status (int | None | Unset): HTTP status of the failed provider request, if known.
            reset_at (datetime.datetime | None | Unset): When the exhausted limit resets: RFC 3339, UTC.
            retry_after_s (int | None | Unset): Seconds to wait before retrying, when the provider said.
            tool (None | ToolErrorCode | Unset): A tool run's error code and hint.
    """

    kind: Literal[
        "auth",
        "budget",
        "cancelled",
        "context_overflow",
        "credential_unavailable",
        "idle_timeout",
        "invalid_input",
        "invalid_model",
        "invalid_output",
        "invalid_session",
        "max_turns",
        "network",
        "overloaded",
        "policy",
        "provider_error",
        "quota",
        "rate_limit",
        "session_busy",
        "timeout",
        "tool_error",
        "unknown",
        "user_input_requested",
    ]
    message: str
    recoverable: bool
    source: Literal["exit_status", "internal", "pattern", "structured"]
    exit_code: int | None | Unset = UNSET
    provider_status: int | None | Unset = UNSET
    reset_at: datetime.datetime | None | Unset = UNSET
    retry_after_s: int | None | Unset = UNSET
    tool: None | ToolErrorCode | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.tool_error_code import ToolErrorCode

        kind: Literal[
            "auth",
            "budget",
            "cancelled",
            "context_overflow",
            "credential_unavailable",
            "idle_timeout",
            "invalid_input",
            "invalid_model",
            "invalid_output",
            "invalid_session",
            "max_turns",
            "network",
            "overloaded",
            "policy",
            "provider_error",
            "quota",
            "rate_limit",
            "session_busy",
            "timeout",
            "tool_error",
            "unknown",
            "user_input_requested",
        ]
        kind = self.kind

        message = self.message

        recoverable = self.recoverable

        source: Literal["exit_status", "internal", "pattern", "structured"]
        source = self.source

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

        def _parse_kind(
            data: object,
        ) -> Literal[
            "auth",
            "budget",
            "cancelled",
            "context_overflow",
            "credential_unavailable",
            "idle_timeout",
            "invalid_input",
            "invalid_model",
            "invalid_output",
            "invalid_session",
            "max_turns",
            "network",
            "overloaded",
            "policy",
            "provider_error",
            "quota",
            "rate_limit",
            "session_busy",
            "timeout",
            "tool_error",
            "unknown",
            "user_input_requested",
        ]:
            componentsschemas_error_kind_type_0 = cast(Literal["timeout"], data)
            if componentsschemas_error_kind_type_0 != "timeout":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_0 must match const 'timeout', got '{componentsschemas_error_kind_type_0}'"
                )
            return componentsschemas_error_kind_type_0
            componentsschemas_error_kind_type_1 = cast(Literal["idle_timeout"], data)
            if componentsschemas_error_kind_type_1 != "idle_timeout":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_1 must match const 'idle_timeout', got '{componentsschemas_error_kind_type_1}'"
                )
            return componentsschemas_error_kind_type_1
            componentsschemas_error_kind_type_2 = cast(Literal["quota"], data)
            if componentsschemas_error_kind_type_2 != "quota":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_2 must match const 'quota', got '{componentsschemas_error_kind_type_2}'"
                )
            return componentsschemas_error_kind_type_2
            componentsschemas_error_kind_type_3 = cast(Literal["rate_limit"], data)
            if componentsschemas_error_kind_type_3 != "rate_limit":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_3 must match const 'rate_limit', got '{componentsschemas_error_kind_type_3}'"
                )
            return componentsschemas_error_kind_type_3
            componentsschemas_error_kind_type_4 = cast(Literal["overloaded"], data)
            if componentsschemas_error_kind_type_4 != "overloaded":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_4 must match const 'overloaded', got '{componentsschemas_error_kind_type_4}'"
                )
            return componentsschemas_error_kind_type_4
            componentsschemas_error_kind_type_5 = cast(Literal["invalid_model"], data)
            if componentsschemas_error_kind_type_5 != "invalid_model":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_5 must match const 'invalid_model', got '{componentsschemas_error_kind_type_5}'"
                )
            return componentsschemas_error_kind_type_5
            componentsschemas_error_kind_type_6 = cast(Literal["invalid_session"], data)
            if componentsschemas_error_kind_type_6 != "invalid_session":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_6 must match const 'invalid_session', got '{componentsschemas_error_kind_type_6}'"
                )
            return componentsschemas_error_kind_type_6
            componentsschemas_error_kind_type_7 = cast(Literal["invalid_input"], data)
            if componentsschemas_error_kind_type_7 != "invalid_input":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_7 must match const 'invalid_input', got '{componentsschemas_error_kind_type_7}'"
                )
            return componentsschemas_error_kind_type_7
            componentsschemas_error_kind_type_8 = cast(Literal["auth"], data)
            if componentsschemas_error_kind_type_8 != "auth":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_8 must match const 'auth', got '{componentsschemas_error_kind_type_8}'"
                )
            return componentsschemas_error_kind_type_8
            componentsschemas_error_kind_type_9 = cast(
                Literal["credential_unavailable"], data
            )
            if componentsschemas_error_kind_type_9 != "credential_unavailable":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_9 must match const 'credential_unavailable', got '{componentsschemas_error_kind_type_9}'"
                )
            return componentsschemas_error_kind_type_9
            componentsschemas_error_kind_type_10 = cast(Literal["network"], data)
            if componentsschemas_error_kind_type_10 != "network":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_10 must match const 'network', got '{componentsschemas_error_kind_type_10}'"
                )
            return componentsschemas_error_kind_type_10
            componentsschemas_error_kind_type_11 = cast(
                Literal["context_overflow"], data
            )
            if componentsschemas_error_kind_type_11 != "context_overflow":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_11 must match const 'context_overflow', got '{componentsschemas_error_kind_type_11}'"
                )
            return componentsschemas_error_kind_type_11
            componentsschemas_error_kind_type_12 = cast(Literal["invalid_output"], data)
            if componentsschemas_error_kind_type_12 != "invalid_output":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_12 must match const 'invalid_output', got '{componentsschemas_error_kind_type_12}'"
                )
            return componentsschemas_error_kind_type_12
            componentsschemas_error_kind_type_13 = cast(
                Literal["user_input_requested"], data
            )
            if componentsschemas_error_kind_type_13 != "user_input_requested":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_13 must match const 'user_input_requested', got '{componentsschemas_error_kind_type_13}'"
                )
            return componentsschemas_error_kind_type_13
            componentsschemas_error_kind_type_14 = cast(Literal["cancelled"], data)
            if componentsschemas_error_kind_type_14 != "cancelled":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_14 must match const 'cancelled', got '{componentsschemas_error_kind_type_14}'"
                )
            return componentsschemas_error_kind_type_14
            componentsschemas_error_kind_type_15 = cast(Literal["provider_error"], data)
            if componentsschemas_error_kind_type_15 != "provider_error":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_15 must match const 'provider_error', got '{componentsschemas_error_kind_type_15}'"
                )
            return componentsschemas_error_kind_type_15
            componentsschemas_error_kind_type_16 = cast(Literal["session_busy"], data)
            if componentsschemas_error_kind_type_16 != "session_busy":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_16 must match const 'session_busy', got '{componentsschemas_error_kind_type_16}'"
                )
            return componentsschemas_error_kind_type_16
            componentsschemas_error_kind_type_17 = cast(Literal["tool_error"], data)
            if componentsschemas_error_kind_type_17 != "tool_error":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_17 must match const 'tool_error', got '{componentsschemas_error_kind_type_17}'"
                )
            return componentsschemas_error_kind_type_17
            componentsschemas_error_kind_type_18 = cast(Literal["policy"], data)
            if componentsschemas_error_kind_type_18 != "policy":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_18 must match const 'policy', got '{componentsschemas_error_kind_type_18}'"
                )
            return componentsschemas_error_kind_type_18
            componentsschemas_error_kind_type_19 = cast(Literal["max_turns"], data)
            if componentsschemas_error_kind_type_19 != "max_turns":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_19 must match const 'max_turns', got '{componentsschemas_error_kind_type_19}'"
                )
            return componentsschemas_error_kind_type_19
            componentsschemas_error_kind_type_20 = cast(Literal["budget"], data)
            if componentsschemas_error_kind_type_20 != "budget":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_20 must match const 'budget', got '{componentsschemas_error_kind_type_20}'"
                )
            return componentsschemas_error_kind_type_20
            componentsschemas_error_kind_type_21 = cast(Literal["unknown"], data)
            if componentsschemas_error_kind_type_21 != "unknown":
                raise ValueError(
                    f"/components/schemas/ErrorKind_type_21 must match const 'unknown', got '{componentsschemas_error_kind_type_21}'"
                )
            return componentsschemas_error_kind_type_21

        kind = _parse_kind(d.pop("kind"))

        message = d.pop("message")

        recoverable = d.pop("recoverable")

        def _parse_source(
            data: object,
        ) -> Literal["exit_status", "internal", "pattern", "structured"]:
            componentsschemas_error_source_type_0 = cast(Literal["structured"], data)
            if componentsschemas_error_source_type_0 != "structured":
                raise ValueError(
                    f"/components/schemas/ErrorSource_type_0 must match const 'structured', got '{componentsschemas_error_source_type_0}'"
                )
            return componentsschemas_error_source_type_0
            componentsschemas_error_source_type_1 = cast(Literal["exit_status"], data)
            if componentsschemas_error_source_type_1 != "exit_status":
                raise ValueError(
                    f"/components/schemas/ErrorSource_type_1 must match const 'exit_status', got '{componentsschemas_error_source_type_1}'"
                )
            return componentsschemas_error_source_type_1
            componentsschemas_error_source_type_2 = cast(Literal["pattern"], data)
            if componentsschemas_error_source_type_2 != "pattern":
                raise ValueError(
                    f"/components/schemas/ErrorSource_type_2 must match const 'pattern', got '{componentsschemas_error_source_type_2}'"
                )
            return componentsschemas_error_source_type_2
            componentsschemas_error_source_type_3 = cast(Literal["internal"], data)
            if componentsschemas_error_source_type_3 != "internal":
                raise ValueError(
                    f"/components/schemas/ErrorSource_type_3 must match const 'internal', got '{componentsschemas_error_source_type_3}'"
                )
            return componentsschemas_error_source_type_3

        source = _parse_source(d.pop("source"))

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
