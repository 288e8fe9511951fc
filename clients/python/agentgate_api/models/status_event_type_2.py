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

T = TypeVar("T", bound="StatusEventType2")


@_attrs_define
class StatusEventType2:
    """Any other notice worth showing: the provider's, or agentgate's own
    before the CLI starts when it runs the CLI otherwise than asked (a
    flag the CLI cannot take left out, a mode mapped onto one it has).

        Attributes:
            detail (str): The notice text.
            kind (Literal['notice']):
    """

    detail: str
    kind: Literal["notice"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        detail = self.detail

        kind = self.kind

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "detail": detail,
                "kind": kind,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        detail = d.pop("detail")

        kind = cast(Literal["notice"], d.pop("kind"))
        if kind != "notice":
            raise ValueError(f"kind must match const 'notice', got '{kind}'")

        status_event_type_2 = cls(
            detail=detail,
            kind=kind,
        )

        status_event_type_2.additional_properties = d
        return status_event_type_2

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
