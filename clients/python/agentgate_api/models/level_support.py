from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="LevelSupport")


@_attrs_define
class LevelSupport:
    """One level's verdict on this host.

    Attributes:
        level (str): `workspace`, `strict` or `container`.
        reason (str): What enforces it, or what is missing and what that leaves open.
        state (str): `enforced`, `partial` or `not_enforced`.
    """

    level: str
    reason: str
    state: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        level = self.level

        reason = self.reason

        state = self.state

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "level": level,
                "reason": reason,
                "state": state,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        level = d.pop("level")

        reason = d.pop("reason")

        state = d.pop("state")

        level_support = cls(
            level=level,
            reason=reason,
            state=state,
        )

        level_support.additional_properties = d
        return level_support

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
