from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.error_kind import ErrorKind, check_error_kind

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
        error_type (ErrorKind | None): The attempt's error kind; `null` if it succeeded.
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
    error_type: ErrorKind | None
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

        error_type: None | str
        if isinstance(self.error_type, str):
            error_type = self.error_type
        else:
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

        def _parse_error_type(data: object) -> ErrorKind | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                error_type_type_0 = check_error_kind(data)

                return error_type_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ErrorKind | None, data)

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
