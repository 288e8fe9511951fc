from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ProgressMessage")


@_attrs_define
class ProgressMessage:
    """Body of `progress`.

    Attributes:
        msg (None | str | Unset): What the tool is doing, for humans.
        pct (float | None | Unset): Percent done, 0 to 100, as the tool wrote it (`37.5`, `40`).
        step (None | str | Unset): The step.
    """

    msg: None | str | Unset = UNSET
    pct: float | None | Unset = UNSET
    step: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        msg: None | str | Unset
        if isinstance(self.msg, Unset):
            msg = UNSET
        else:
            msg = self.msg

        pct: float | None | Unset
        if isinstance(self.pct, Unset):
            pct = UNSET
        else:
            pct = self.pct

        step: None | str | Unset
        if isinstance(self.step, Unset):
            step = UNSET
        else:
            step = self.step

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if msg is not UNSET:
            field_dict["msg"] = msg
        if pct is not UNSET:
            field_dict["pct"] = pct
        if step is not UNSET:
            field_dict["step"] = step

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_msg(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        msg = _parse_msg(d.pop("msg", UNSET))

        def _parse_pct(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        pct = _parse_pct(d.pop("pct", UNSET))

        def _parse_step(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        step = _parse_step(d.pop("step", UNSET))

        progress_message = cls(
            msg=msg,
            pct=pct,
            step=step,
        )

        progress_message.additional_properties = d
        return progress_message

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
