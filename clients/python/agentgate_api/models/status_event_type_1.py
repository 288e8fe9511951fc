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

from ..types import UNSET, Unset

T = TypeVar("T", bound="StatusEventType1")


@_attrs_define
class StatusEventType1:
    """The provider compacted (summarized) the conversation to fit its context.

    Attributes:
        kind (Literal['compaction']):
        detail (None | str | Unset): The provider's description, if any.
        tokens_before (int | None | Unset): Context size before compaction, in tokens, if known.
    """

    kind: Literal["compaction"]
    detail: None | str | Unset = UNSET
    tokens_before: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind

        detail: None | str | Unset
        if isinstance(self.detail, Unset):
            detail = UNSET
        else:
            detail = self.detail

        tokens_before: int | None | Unset
        if isinstance(self.tokens_before, Unset):
            tokens_before = UNSET
        else:
            tokens_before = self.tokens_before

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kind": kind,
            }
        )
        if detail is not UNSET:
            field_dict["detail"] = detail
        if tokens_before is not UNSET:
            field_dict["tokens_before"] = tokens_before

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kind = cast(Literal["compaction"], d.pop("kind"))
        if kind != "compaction":
            raise ValueError(f"kind must match const 'compaction', got '{kind}'")

        def _parse_detail(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        detail = _parse_detail(d.pop("detail", UNSET))

        def _parse_tokens_before(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        tokens_before = _parse_tokens_before(d.pop("tokens_before", UNSET))

        status_event_type_1 = cls(
            kind=kind,
            detail=detail,
            tokens_before=tokens_before,
        )

        status_event_type_1.additional_properties = d
        return status_event_type_1

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
