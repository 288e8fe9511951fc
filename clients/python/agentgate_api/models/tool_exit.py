from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.exit_meaning import ExitMeaning, check_exit_meaning

T = TypeVar("T", bound="ToolExit")


@_attrs_define
class ToolExit:
    """How the tool process ended.

    Attributes:
        code (int | None): Its exit status, if it exited.
        meaning (ExitMeaning): What the tool's exit status means under its manifest's `exit_codes`.

            - `ok`: The manifest's `ok` code.
            - `retryable_error`: The manifest's `retryable_error` code.
            - `fatal_error`: The manifest's `fatal_error` code.
            - `unexpected`: A code the manifest does not list, or death by a signal.
        signal (None | str): The signal that ended it (`SIGKILL`, `SIGXCPU`), if one did.
    """

    code: int | None
    meaning: ExitMeaning
    signal: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code: int | None
        code = self.code

        meaning: str = self.meaning

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

        meaning = check_exit_meaning(d.pop("meaning"))

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
