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

T = TypeVar("T", bound="StatusEventType5")


@_attrs_define
class StatusEventType5:
    """agentgate's own: the attempt's wall-clock deadline (`timeout`) is
    near (`timeout_warn`). The attempt goes on.

        Attributes:
            deadline (datetime.datetime): When the deadline falls, RFC 3339 in UTC.
            elapsed_ms (int): Time since the CLI started, in milliseconds.
            kind (Literal['timeout_warning']):
            remaining_ms (int): Time left until the deadline, in milliseconds.
    """

    deadline: datetime.datetime
    elapsed_ms: int
    kind: Literal["timeout_warning"]
    remaining_ms: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        deadline = self.deadline.isoformat()

        elapsed_ms = self.elapsed_ms

        kind = self.kind

        remaining_ms = self.remaining_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "deadline": deadline,
                "elapsed_ms": elapsed_ms,
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

        kind = cast(Literal["timeout_warning"], d.pop("kind"))
        if kind != "timeout_warning":
            raise ValueError(f"kind must match const 'timeout_warning', got '{kind}'")

        remaining_ms = d.pop("remaining_ms")

        status_event_type_5 = cls(
            deadline=deadline,
            elapsed_ms=elapsed_ms,
            kind=kind,
            remaining_ms=remaining_ms,
        )

        status_event_type_5.additional_properties = d
        return status_event_type_5

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
