from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ToolExit")


@_attrs_define
class ToolExit:
    """How the tool process ended.

    Attributes:
        code (int | None): Its exit status, if it exited.
        meaning (Literal['fatal_error'] | Literal['ok'] | Literal['retryable_error'] | Literal['unexpected']): What the
            tool's exit status means under its manifest's `exit_codes`.
        signal (None | str): The signal that ended it (`SIGKILL`, `SIGXCPU`), if one did.
    """

    code: int | None
    meaning: Literal["fatal_error", "ok", "retryable_error", "unexpected"]
    signal: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code: int | None
        code = self.code

        meaning: Literal["fatal_error", "ok", "retryable_error", "unexpected"]
        meaning = self.meaning

        signal: None | str
        signal = self.signal

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
                "meaning": meaning,
                "signal": signal,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_code(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        code = _parse_code(d.pop("code"))

        def _parse_meaning(
            data: object,
        ) -> Literal["fatal_error", "ok", "retryable_error", "unexpected"]:
            componentsschemas_exit_meaning_type_0 = cast(Literal["ok"], data)
            if componentsschemas_exit_meaning_type_0 != "ok":
                raise ValueError(
                    f"/components/schemas/ExitMeaning_type_0 must match const 'ok', got '{componentsschemas_exit_meaning_type_0}'"
                )
            return componentsschemas_exit_meaning_type_0
            componentsschemas_exit_meaning_type_1 = cast(
                Literal["retryable_error"], data
            )
            if componentsschemas_exit_meaning_type_1 != "retryable_error":
                raise ValueError(
                    f"/components/schemas/ExitMeaning_type_1 must match const 'retryable_error', got '{componentsschemas_exit_meaning_type_1}'"
                )
            return componentsschemas_exit_meaning_type_1
            componentsschemas_exit_meaning_type_2 = cast(Literal["fatal_error"], data)
            if componentsschemas_exit_meaning_type_2 != "fatal_error":
                raise ValueError(
                    f"/components/schemas/ExitMeaning_type_2 must match const 'fatal_error', got '{componentsschemas_exit_meaning_type_2}'"
                )
            return componentsschemas_exit_meaning_type_2
            componentsschemas_exit_meaning_type_3 = cast(Literal["unexpected"], data)
            if componentsschemas_exit_meaning_type_3 != "unexpected":
                raise ValueError(
                    f"/components/schemas/ExitMeaning_type_3 must match const 'unexpected', got '{componentsschemas_exit_meaning_type_3}'"
                )
            return componentsschemas_exit_meaning_type_3

        meaning = _parse_meaning(d.pop("meaning"))

        def _parse_signal(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        signal = _parse_signal(d.pop("signal"))

        tool_exit = cls(
            code=code,
            meaning=meaning,
            signal=signal,
        )

        tool_exit.additional_properties = d
        return tool_exit

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
