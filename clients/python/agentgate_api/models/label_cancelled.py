from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.run_accepted import RunAccepted


T = TypeVar("T", bound="LabelCancelled")


@_attrs_define
class LabelCancelled:
    """What `POST /v1/runs/cancel` did.

    Attributes:
        cancelled (list[RunAccepted]): The runs cancelled, each as a single cancel answers: `status`
            `cancelled` for a queued run (ended now), `running` with
            `cancel_requested` for one being stopped.
    """

    cancelled: list[RunAccepted]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cancelled = []
        for cancelled_item_data in self.cancelled:
            cancelled_item = cancelled_item_data.to_dict()
            cancelled.append(cancelled_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cancelled": cancelled,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.run_accepted import RunAccepted

        d = dict(src_dict)
        cancelled = []
        _cancelled = d.pop("cancelled")
        for cancelled_item_data in _cancelled:
            cancelled_item = RunAccepted.from_dict(cancelled_item_data)

            cancelled.append(cancelled_item)

        label_cancelled = cls(
            cancelled=cancelled,
        )

        label_cancelled.additional_properties = d
        return label_cancelled

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
