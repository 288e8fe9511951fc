from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ErrorMessage")


@_attrs_define
class ErrorMessage:
    """Body of `error`.

    Attributes:
        code (str): A code of the error-code registry, e.g. `E_INPUT_NOT_FOUND`.
        hint (None | str | Unset): What to do about it.
        msg (None | str | Unset): What went wrong, for humans.
        retryable (bool | None | Unset): The tool's own opinion; the registry's entry for `code` decides.
    """

    code: str
    hint: None | str | Unset = UNSET
    msg: None | str | Unset = UNSET
    retryable: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code

        hint: None | str | Unset
        if isinstance(self.hint, Unset):
            hint = UNSET
        else:
            hint = self.hint

        msg: None | str | Unset
        if isinstance(self.msg, Unset):
            msg = UNSET
        else:
            msg = self.msg

        retryable: bool | None | Unset
        if isinstance(self.retryable, Unset):
            retryable = UNSET
        else:
            retryable = self.retryable

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
            }
        )
        if hint is not UNSET:
            field_dict["hint"] = hint
        if msg is not UNSET:
            field_dict["msg"] = msg
        if retryable is not UNSET:
            field_dict["retryable"] = retryable

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        code = d.pop("code")

        def _parse_hint(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        hint = _parse_hint(d.pop("hint", UNSET))

        def _parse_msg(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        msg = _parse_msg(d.pop("msg", UNSET))

        def _parse_retryable(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        retryable = _parse_retryable(d.pop("retryable", UNSET))

        error_message = cls(
            code=code,
            hint=hint,
            msg=msg,
            retryable=retryable,
        )

        error_message.additional_properties = d
        return error_message

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
