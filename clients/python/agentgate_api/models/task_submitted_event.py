from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TaskSubmittedEvent")


@_attrs_define
class TaskSubmittedEvent:
    """Body of `task_submitted`: a step is ready and waits for its turn.

    Attributes:
        kind (str): The step's kind: `tool`, `agent`, `parallel` or `decision`.
        task_id (str): The step's id.
        group (None | str | Unset): The `parallel` group it belongs to, if any.
        payload (Any | Unset): What it will run: a tool's name and arguments, an agent's prompt.
    """

    kind: str
    task_id: str
    group: None | str | Unset = UNSET
    payload: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind

        task_id = self.task_id

        group: None | str | Unset
        if isinstance(self.group, Unset):
            group = UNSET
        else:
            group = self.group

        payload = self.payload

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kind": kind,
                "task_id": task_id,
            }
        )
        if group is not UNSET:
            field_dict["group"] = group
        if payload is not UNSET:
            field_dict["payload"] = payload

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kind = d.pop("kind")

        task_id = d.pop("task_id")

        def _parse_group(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        group = _parse_group(d.pop("group", UNSET))

        payload = d.pop("payload", UNSET)

        task_submitted_event = cls(
            kind=kind,
            task_id=task_id,
            group=group,
            payload=payload,
        )

        task_submitted_event.additional_properties = d
        return task_submitted_event

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
