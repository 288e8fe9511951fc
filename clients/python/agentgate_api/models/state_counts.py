from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="StateCounts")


@_attrs_define
class StateCounts:
    """How many runs are in each state.

    Attributes:
        abandoned (int): Abandoned by a dead executor.
        cancelled (int): Cancelled.
        failed (int): Ended with an error.
        queued (int): Waiting to be claimed.
        running (int): Being run.
        succeeded (int): Ended without error.
    """

    abandoned: int
    cancelled: int
    failed: int
    queued: int
    running: int
    succeeded: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        abandoned = self.abandoned

        cancelled = self.cancelled

        failed = self.failed

        queued = self.queued

        running = self.running

        succeeded = self.succeeded

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "abandoned": abandoned,
                "cancelled": cancelled,
                "failed": failed,
                "queued": queued,
                "running": running,
                "succeeded": succeeded,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        abandoned = d.pop("abandoned")

        cancelled = d.pop("cancelled")

        failed = d.pop("failed")

        queued = d.pop("queued")

        running = d.pop("running")

        succeeded = d.pop("succeeded")

        state_counts = cls(
            abandoned=abandoned,
            cancelled=cancelled,
            failed=failed,
            queued=queued,
            running=running,
            succeeded=succeeded,
        )

        state_counts.additional_properties = d
        return state_counts

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
