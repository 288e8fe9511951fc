from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PendingApprovals")


@_attrs_define
class PendingApprovals:
    """What a run waits on a person for.

    Attributes:
        pending (list[str]): The `request_id`s of its `approval_request` events that wait for
            an answer now.
        run_id (str): The run (the job's id).
    """

    pending: list[str]
    run_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        pending = self.pending

        run_id = self.run_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "pending": pending,
                "run_id": run_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        pending = cast(list[str], d.pop("pending"))

        run_id = d.pop("run_id")

        pending_approvals = cls(
            pending=pending,
            run_id=run_id,
        )

        pending_approvals.additional_properties = d
        return pending_approvals

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
