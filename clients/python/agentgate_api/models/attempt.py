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

if TYPE_CHECKING:
    from ..models.survivor import Survivor


T = TypeVar("T", bound="Attempt")


@_attrs_define
class Attempt:
    """One agent tried during a run: an entry of the envelope's `attempts`.

    Attributes:
        agent (None | str): The agent's name in the failover chain, if it has one.
        duration_ms (int): Wall-clock duration of the attempt, in milliseconds. Default: 0.
        error (None | str): The attempt's error message; `null` if it succeeded.
        error_type (Literal['auth'] | Literal['budget'] | Literal['cancelled'] | Literal['context_overflow'] |
            Literal['credential_unavailable'] | Literal['idle_timeout'] | Literal['invalid_input'] |
            Literal['invalid_model'] | Literal['invalid_output'] | Literal['invalid_session'] | Literal['max_turns'] |
            Literal['network'] | Literal['overloaded'] | Literal['policy'] | Literal['provider_error'] | Literal['quota'] |
            Literal['rate_limit'] | Literal['session_busy'] | Literal['timeout'] | Literal['tool_error'] |
            Literal['unknown'] | Literal['user_input_requested'] | None): The attempt's error kind; `null` if it succeeded.
        exit_code (int | None): Exit status of the provider CLI; `null` if it was killed by a signal or
            never started.
        model (None | str): The model, as reported or requested; `null` for the provider's default.
        provider (str): The provider (`claude`, `codex`, …).
        recoverable (bool | None): Whether the attempt's error was recoverable; `null` if it succeeded.
        reset_at (datetime.datetime | None): When the limit that stopped this attempt resets: RFC 3339, UTC.
        session_id (None | str): The native session id of this attempt, if one became known.
        skipped (bool): Whether the provider was not run at all because its quota was known
            to be exhausted until `reset_at` (then `error_type` is `quota`). Default: False.
        survivors (list[Survivor]): Processes the attempt's CLI started that were still alive when it
            ended although they were sent SIGKILL (e.g. stuck in uninterruptible
            I/O); empty when every process was ended. End them by hand.
    """

    agent: None | str
    error: None | str
    error_type: (
        Literal[
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
        | None
    )
    exit_code: int | None
    model: None | str
    provider: str
    recoverable: bool | None
    reset_at: datetime.datetime | None
    session_id: None | str
    survivors: list[Survivor]
    duration_ms: int = 0
    skipped: bool = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent: None | str
        agent = self.agent

        duration_ms = self.duration_ms

        error: None | str
        error = self.error

        error_type: (
            Literal[
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
            | None
        )
        error_type = self.error_type

        exit_code: int | None
        exit_code = self.exit_code

        model: None | str
        model = self.model

        provider = self.provider

        recoverable: bool | None
        recoverable = self.recoverable

        reset_at: None | str
        if isinstance(self.reset_at, datetime.datetime):
            reset_at = self.reset_at.isoformat()
        else:
            reset_at = self.reset_at

        session_id: None | str
        session_id = self.session_id

        skipped = self.skipped

        survivors = []
        for survivors_item_data in self.survivors:
            survivors_item = survivors_item_data.to_dict()
            survivors.append(survivors_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent": agent,
                "duration_ms": duration_ms,
                "error": error,
                "error_type": error_type,
                "exit_code": exit_code,
                "model": model,
                "provider": provider,
                "recoverable": recoverable,
                "reset_at": reset_at,
                "session_id": session_id,
                "skipped": skipped,
                "survivors": survivors,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.survivor import Survivor

        d = dict(src_dict)

        def _parse_agent(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        agent = _parse_agent(d.pop("agent"))

        duration_ms = d.pop("duration_ms")

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        def _parse_error_type(
            data: object,
        ) -> (
            Literal[
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
            | None
        ):
            if data is None:
                return data
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
            return cast(
                Literal[
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
                | None,
                data,
            )

        error_type = _parse_error_type(d.pop("error_type"))

        def _parse_exit_code(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        exit_code = _parse_exit_code(d.pop("exit_code"))

        def _parse_model(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        model = _parse_model(d.pop("model"))

        provider = d.pop("provider")

        def _parse_recoverable(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        recoverable = _parse_recoverable(d.pop("recoverable"))

        def _parse_reset_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reset_at_type_0 = datetime.datetime.fromisoformat(data)

                return reset_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        reset_at = _parse_reset_at(d.pop("reset_at"))

        def _parse_session_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        session_id = _parse_session_id(d.pop("session_id"))

        skipped = d.pop("skipped")

        survivors = []
        _survivors = d.pop("survivors")
        for survivors_item_data in _survivors:
            survivors_item = Survivor.from_dict(survivors_item_data)

            survivors.append(survivors_item)

        attempt = cls(
            agent=agent,
            duration_ms=duration_ms,
            error=error,
            error_type=error_type,
            exit_code=exit_code,
            model=model,
            provider=provider,
            recoverable=recoverable,
            reset_at=reset_at,
            session_id=session_id,
            skipped=skipped,
            survivors=survivors,
        )

        attempt.additional_properties = d
        return attempt

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
