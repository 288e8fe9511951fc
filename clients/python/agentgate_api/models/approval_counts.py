from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ApprovalCounts")


@_attrs_define
class ApprovalCounts:
    """The envelope's `approvals`: the run's permission requests, counted.

    Attributes:
        allowed (int): Allowed (by the policy or a human).
        asked (int): Sent to a human (`ask`).
        denied (int): Denied (by the policy, a human, a timeout or a repeat).
        requested (int): Requests the CLI made.
        timed_out (int): Denied because nobody answered in time.
    """

    allowed: int
    asked: int
    denied: int
    requested: int
    timed_out: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        allowed = self.allowed

        asked = self.asked

        denied = self.denied

        requested = self.requested

        timed_out = self.timed_out

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "allowed": allowed,
                "asked": asked,
                "denied": denied,
                "requested": requested,
                "timed_out": timed_out,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        allowed = d.pop("allowed")

        asked = d.pop("asked")

        denied = d.pop("denied")

        requested = d.pop("requested")

        timed_out = d.pop("timed_out")

        approval_counts = cls(
            allowed=allowed,
            asked=asked,
            denied=denied,
            requested=requested,
            timed_out=timed_out,
        )

        approval_counts.additional_properties = d
        return approval_counts

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
