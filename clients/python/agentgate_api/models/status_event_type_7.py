from __future__ import annotations

import datetime
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

T = TypeVar("T", bound="StatusEventType7")


@_attrs_define
class StatusEventType7:
    """agentgate's own: the deadline came while the CLI was still printing
    (within `extend_on_activity`), so it moved later, never past
    `max_timeout` from the CLI's start.

        Attributes:
            deadline (datetime.datetime): The new deadline, RFC 3339 in UTC.
            elapsed_ms (int): Time since the CLI started, in milliseconds.
            extended_by_ms (int): How far the deadline moved, in milliseconds.
            kind (Literal['timeout_extended']):
            remaining_ms (int): Time left until the new deadline, in milliseconds.
    """

    deadline: datetime.datetime
    elapsed_ms: int
    extended_by_ms: int
    kind: Literal["timeout_extended"]
    remaining_ms: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        deadline = self.deadline.isoformat()

        elapsed_ms = self.elapsed_ms

        extended_by_ms = self.extended_by_ms

        kind = self.kind

        remaining_ms = self.remaining_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "deadline": deadline,
                "elapsed_ms": elapsed_ms,
                "extended_by_ms": extended_by_ms,
                "kind": kind,
                "remaining_ms": remaining_ms,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        deadline = datetime.datetime.fromisoformat(d.pop("deadline"))

        elapsed_ms = d.pop("elapsed_ms")

        extended_by_ms = d.pop("extended_by_ms")

        kind = cast(Literal["timeout_extended"], d.pop("kind"))
        if kind != "timeout_extended":
            raise ValueError(f"kind must match const 'timeout_extended', got '{kind}'")

        remaining_ms = d.pop("remaining_ms")

        status_event_type_7 = cls(
            deadline=deadline,
            elapsed_ms=elapsed_ms,
            extended_by_ms=extended_by_ms,
            kind=kind,
            remaining_ms=remaining_ms,
        )

        status_event_type_7.additional_properties = d
        return status_event_type_7

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
