from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.activity_class import ActivityClass, check_activity_class
from ..models.tool_class import ToolClass, check_tool_class

T = TypeVar("T", bound="ToolActivity")


@_attrs_define
class ToolActivity:
    """The envelope's `metadata.tool_activity`: a summary of the run's tool calls.

    Attributes:
        activity_class (ActivityClass): Roll-up of [`ToolActivity`], the first that applies.

            - `tool_errors`: At least one tool call failed.
            - `write_active`: At least one tool call wrote to the workspace.
            - `tool_active`: Tools were called, none wrote.
            - `none`: No tool was called.
        call_count (int): Tool calls, repeats counted. Default: 0.
        error_count (int): Calls whose result reported failure. Default: 0.
        result_classes (list[ToolClass]): Classes of the tools called, each once, in order of first use.
        source (str): Where the figures come from, e.g. `stream:claude`. Default: ''.
        tool_names (list[str]): Names of the tools called, each once, in order of first use.
        write_count (int): Calls of class `write`. Default: 0.
    """

    activity_class: ActivityClass
    result_classes: list[ToolClass]
    tool_names: list[str]
    call_count: int = 0
    error_count: int = 0
    source: str = ""
    write_count: int = 0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        activity_class: str = self.activity_class

        call_count = self.call_count

        error_count = self.error_count

        result_classes = []
        for result_classes_item_data in self.result_classes:
            result_classes_item: str = result_classes_item_data
            result_classes.append(result_classes_item)

        source = self.source

        tool_names = self.tool_names

        write_count = self.write_count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "activity_class": activity_class,
                "call_count": call_count,
                "error_count": error_count,
                "result_classes": result_classes,
                "source": source,
                "tool_names": tool_names,
                "write_count": write_count,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        activity_class = check_activity_class(d.pop("activity_class"))

        call_count = d.pop("call_count")

        error_count = d.pop("error_count")

        result_classes = []
        _result_classes = d.pop("result_classes")
        for result_classes_item_data in _result_classes:
            result_classes_item = check_tool_class(result_classes_item_data)

            result_classes.append(result_classes_item)

        source = d.pop("source")

        tool_names = cast(list[str], d.pop("tool_names"))

        write_count = d.pop("write_count")

        tool_activity = cls(
            activity_class=activity_class,
            call_count=call_count,
            error_count=error_count,
            result_classes=result_classes,
            source=source,
            tool_names=tool_names,
            write_count=write_count,
        )

        tool_activity.additional_properties = d
        return tool_activity

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
