from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ApprovalAnswered")


@_attrs_define
class ApprovalAnswered:
    """An answer taken.

    Attributes:
        decision (str): `allow` or `deny`.
        request_id (str): The request answered.
        run_id (str): The run (the job's id).
    """

    decision: str
    request_id: str
    run_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        decision = self.decision

        request_id = self.request_id

        run_id = self.run_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "decision": decision,
                "request_id": request_id,
                "run_id": run_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        decision = d.pop("decision")

        request_id = d.pop("request_id")

        run_id = d.pop("run_id")

        approval_answered = cls(
            decision=decision,
            request_id=request_id,
            run_id=run_id,
        )

        approval_answered.additional_properties = d
        return approval_answered

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
