from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="HeartbeatEvent")


@_attrs_define
class HeartbeatEvent:
    """Body of `heartbeat`: emitted while the agent is silent, so a consumer can
    tell a quiet run from a dead one.

        Attributes:
            elapsed_ms (int): Time since the run started, in milliseconds.
            idle_ms (int): Time since the agent last wrote anything, in milliseconds.
    """

    elapsed_ms: int
    idle_ms: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        elapsed_ms = self.elapsed_ms

        idle_ms = self.idle_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "elapsed_ms": elapsed_ms,
                "idle_ms": idle_ms,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        elapsed_ms = d.pop("elapsed_ms")

        idle_ms = d.pop("idle_ms")

        heartbeat_event = cls(
            elapsed_ms=elapsed_ms,
            idle_ms=idle_ms,
        )

        heartbeat_event.additional_properties = d
        return heartbeat_event

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
