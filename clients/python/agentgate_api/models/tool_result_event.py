from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ToolResultEvent")


@_attrs_define
class ToolResultEvent:
    """Body of `tool_result`: a tool call finished.

    Attributes:
        id (str): The id of the matching `tool_use`.
        ok (bool): Whether the tool reported success.
        output (str): The tool's output, possibly truncated (see `truncated`).
        truncated (bool): Whether `output` was cut short. Default: False.
        exit_code (int | None | Unset): Exit status of a shell command, when the tool ran one.
        original_bytes (int | None | Unset): Length in bytes of the whole output, present when `truncated`.
    """

    id: str
    ok: bool
    output: str
    truncated: bool = False
    exit_code: int | None | Unset = UNSET
    original_bytes: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        ok = self.ok

        output = self.output

        truncated = self.truncated

        exit_code: int | None | Unset
        if isinstance(self.exit_code, Unset):
            exit_code = UNSET
        else:
            exit_code = self.exit_code

        original_bytes: int | None | Unset
        if isinstance(self.original_bytes, Unset):
            original_bytes = UNSET
        else:
            original_bytes = self.original_bytes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "ok": ok,
                "output": output,
                "truncated": truncated,
            }
        )
        if exit_code is not UNSET:
            field_dict["exit_code"] = exit_code
        if original_bytes is not UNSET:
            field_dict["original_bytes"] = original_bytes

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        ok = d.pop("ok")

        output = d.pop("output")

        truncated = d.pop("truncated")

        def _parse_exit_code(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        exit_code = _parse_exit_code(d.pop("exit_code", UNSET))

        def _parse_original_bytes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        original_bytes = _parse_original_bytes(d.pop("original_bytes", UNSET))

        tool_result_event = cls(
            id=id,
            ok=ok,
            output=output,
            truncated=truncated,
            exit_code=exit_code,
            original_bytes=original_bytes,
        )

        tool_result_event.additional_properties = d
        return tool_result_event

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
