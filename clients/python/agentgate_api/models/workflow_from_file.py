from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="WorkflowFromFile")


@_attrs_define
class WorkflowFromFile:
    """
    Attributes:
        file (str):
        base_dir (None | Unset):
        workflow (None | Unset):
    """

    file: str
    base_dir: None | Unset = UNSET
    workflow: None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        file = self.file

        base_dir = self.base_dir

        workflow = self.workflow

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "file": file,
            }
        )
        if base_dir is not UNSET:
            field_dict["base_dir"] = base_dir
        if workflow is not UNSET:
            field_dict["workflow"] = workflow

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        file = d.pop("file")

        base_dir = d.pop("base_dir", UNSET)

        workflow = d.pop("workflow", UNSET)

        workflow_from_file = cls(
            file=file,
            base_dir=base_dir,
            workflow=workflow,
        )

        workflow_from_file.additional_properties = d
        return workflow_from_file

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
