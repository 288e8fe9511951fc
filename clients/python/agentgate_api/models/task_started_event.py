from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TaskStartedEvent")


@_attrs_define
class TaskStartedEvent:
    """Body of `task_started`: a try of a step started a run (or, for a step
    that runs nothing itself, a `parallel` group, started).

        Attributes:
            step_attempt (int): The try, from 1 (not `attempt`: that is the event header's provider
                attempt).
            task_id (str): The step's id.
            child_kind (None | str | Unset): What the run is: `tool` or `agent`.
            child_run_id (None | str | Unset): The run this try starts (a tool or agent run), if it starts one. A
                decision's try starts several: its agent's, then its tool's.
            resumed_from (None | str | Unset): The earlier run whose workspace (and checkpoints) it continues.
    """

    step_attempt: int
    task_id: str
    child_kind: None | str | Unset = UNSET
    child_run_id: None | str | Unset = UNSET
    resumed_from: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        step_attempt = self.step_attempt

        task_id = self.task_id

        child_kind: None | str | Unset
        if isinstance(self.child_kind, Unset):
            child_kind = UNSET
        else:
            child_kind = self.child_kind

        child_run_id: None | str | Unset
        if isinstance(self.child_run_id, Unset):
            child_run_id = UNSET
        else:
            child_run_id = self.child_run_id

        resumed_from: None | str | Unset
        if isinstance(self.resumed_from, Unset):
            resumed_from = UNSET
        else:
            resumed_from = self.resumed_from

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "step_attempt": step_attempt,
                "task_id": task_id,
            }
        )
        if child_kind is not UNSET:
            field_dict["child_kind"] = child_kind
        if child_run_id is not UNSET:
            field_dict["child_run_id"] = child_run_id
        if resumed_from is not UNSET:
            field_dict["resumed_from"] = resumed_from

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        step_attempt = d.pop("step_attempt")

        task_id = d.pop("task_id")

        def _parse_child_kind(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        child_kind = _parse_child_kind(d.pop("child_kind", UNSET))

        def _parse_child_run_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        child_run_id = _parse_child_run_id(d.pop("child_run_id", UNSET))

        def _parse_resumed_from(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        resumed_from = _parse_resumed_from(d.pop("resumed_from", UNSET))

        task_started_event = cls(
            step_attempt=step_attempt,
            task_id=task_id,
            child_kind=child_kind,
            child_run_id=child_run_id,
            resumed_from=resumed_from,
        )

        task_started_event.additional_properties = d
        return task_started_event

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
