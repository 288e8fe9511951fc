from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.worker_view import WorkerView


T = TypeVar("T", bound="WorkerList")


@_attrs_define
class WorkerList:
    """`GET /v1/workers`: every worker in the store, oldest start first.

    Attributes:
        workers (list[WorkerView]): The workers (`agentgate worker`, and `agentgate serve` with its
            executor).
    """

    workers: list[WorkerView]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        workers = []
        for workers_item_data in self.workers:
            workers_item = workers_item_data.to_dict()
            workers.append(workers_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "workers": workers,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.worker_view import WorkerView

        d = dict(src_dict)
        workers = []
        _workers = d.pop("workers")
        for workers_item_data in _workers:
            workers_item = WorkerView.from_dict(workers_item_data)

            workers.append(workers_item)

        worker_list = cls(
            workers=workers,
        )

        worker_list.additional_properties = d
        return worker_list

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
