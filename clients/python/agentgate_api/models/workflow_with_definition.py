from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="WorkflowWithDefinition")


@_attrs_define
class WorkflowWithDefinition:
    """
    Attributes:
        base_dir (str):
        workflow (Any):
        file (None | Unset):
    """

    base_dir: str
    workflow: Any
    file: None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        base_dir = self.base_dir

        workflow = self.workflow

        file = self.file

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "base_dir": base_dir,
                "workflow": workflow,
            }
        )
        if file is not UNSET:
            field_dict["file"] = file

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        base_dir = d.pop("base_dir")

        workflow = d.pop("workflow")

        file = d.pop("file", UNSET)

        workflow_with_definition = cls(
            base_dir=base_dir,
            workflow=workflow,
            file=file,
        )

        workflow_with_definition.additional_properties = d
        return workflow_with_definition

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
