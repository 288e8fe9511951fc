from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.task_input import TaskInput


T = TypeVar("T", bound="RunWithTask")


@_attrs_define
class RunWithTask:
    """
    Attributes:
        task (TaskInput): A task input: what `agentgate run` reads from stdin as JSON.
        prompt (None | Unset):
    """

    task: TaskInput
    prompt: None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        task = self.task.to_dict()

        prompt = self.prompt

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "task": task,
            }
        )
        if prompt is not UNSET:
            field_dict["prompt"] = prompt

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.task_input import TaskInput

        d = dict(src_dict)
        task = TaskInput.from_dict(d.pop("task"))

        prompt = d.pop("prompt", UNSET)

        run_with_task = cls(
            task=task,
            prompt=prompt,
        )

        run_with_task.additional_properties = d
        return run_with_task

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
