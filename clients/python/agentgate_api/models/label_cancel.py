from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.label_cancel_labels import LabelCancelLabels


T = TypeVar("T", bound="LabelCancel")


@_attrs_define
class LabelCancel:
    """The body of `POST /v1/runs/cancel`.

    Attributes:
        labels (LabelCancelLabels): The labels a run must all carry to be cancelled, `{"key": "value"}`;
            at least one.
    """

    labels: LabelCancelLabels

    def to_dict(self) -> dict[str, Any]:
        labels = self.labels.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "labels": labels,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.label_cancel_labels import LabelCancelLabels

        d = dict(src_dict)
        labels = LabelCancelLabels.from_dict(d.pop("labels"))

        label_cancel = cls(
            labels=labels,
        )

        return label_cancel
