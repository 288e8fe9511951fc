from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ToolActivity")


@_attrs_define
class ToolActivity:
    """The envelope's `metadata.tool_activity`: a summary of the run's tool calls.

    Attributes:
        activity_class (Literal['none'] | Literal['tool_active'] | Literal['tool_errors'] | Literal['write_active']):
            Roll-up of [`ToolActivity`], the first that applies.
        call_count (int): Tool calls, repeats counted. Default: 0.
        error_count (int): Calls whose result reported failure. Default: 0.
        result_classes (list[Literal['browser'] | Literal['other'] | Literal['read'] | Literal['shell'] | Literal['web']
            | Literal['write']]): Classes of the tools called, each once, in order of first use.
        source (str): Where the figures come from, e.g. `stream:claude`. Default: ''.
        tool_names (list[str]): Names of the tools called, each once, in order of first use.
        write_count (int): Calls of class `write`. Default: 0.
    """

    activity_class: Literal["none", "tool_active", "tool_errors", "write_active"]
    result_classes: list[Literal["browser", "other", "read", "shell", "web", "write"]]
    tool_names: list[str]
    call_count: int = 0
    error_count: int = 0
    source: str = ""
    write_count: int = 0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        activity_class: Literal["none", "tool_active", "tool_errors", "write_active"]
        activity_class = self.activity_class

        call_count = self.call_count

        error_count = self.error_count

        result_classes = []
        for result_classes_item_data in self.result_classes:
            result_classes_item: Literal[
                "browser", "other", "read", "shell", "web", "write"
            ]
            result_classes_item = result_classes_item_data
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

        def _parse_activity_class(
            data: object,
        ) -> Literal["none", "tool_active", "tool_errors", "write_active"]:
            componentsschemas_activity_class_type_0 = cast(Literal["tool_errors"], data)
            if componentsschemas_activity_class_type_0 != "tool_errors":
                raise ValueError(
                    f"/components/schemas/ActivityClass_type_0 must match const 'tool_errors', got '{componentsschemas_activity_class_type_0}'"
                )
            return componentsschemas_activity_class_type_0
            componentsschemas_activity_class_type_1 = cast(
                Literal["write_active"], data
            )
            if componentsschemas_activity_class_type_1 != "write_active":
                raise ValueError(
                    f"/components/schemas/ActivityClass_type_1 must match const 'write_active', got '{componentsschemas_activity_class_type_1}'"
                )
            return componentsschemas_activity_class_type_1
            componentsschemas_activity_class_type_2 = cast(Literal["tool_active"], data)
            if componentsschemas_activity_class_type_2 != "tool_active":
                raise ValueError(
                    f"/components/schemas/ActivityClass_type_2 must match const 'tool_active', got '{componentsschemas_activity_class_type_2}'"
                )
            return componentsschemas_activity_class_type_2
            componentsschemas_activity_class_type_3 = cast(Literal["none"], data)
            if componentsschemas_activity_class_type_3 != "none":
                raise ValueError(
                    f"/components/schemas/ActivityClass_type_3 must match const 'none', got '{componentsschemas_activity_class_type_3}'"
                )
            return componentsschemas_activity_class_type_3

        activity_class = _parse_activity_class(d.pop("activity_class"))

        call_count = d.pop("call_count")

        error_count = d.pop("error_count")

        result_classes = []
        _result_classes = d.pop("result_classes")
        for result_classes_item_data in _result_classes:

            def _parse_result_classes_item(
                data: object,
            ) -> Literal["browser", "other", "read", "shell", "web", "write"]:
                componentsschemas_tool_class_type_0 = cast(Literal["read"], data)
                if componentsschemas_tool_class_type_0 != "read":
                    raise ValueError(
                        f"/components/schemas/ToolClass_type_0 must match const 'read', got '{componentsschemas_tool_class_type_0}'"
                    )
                return componentsschemas_tool_class_type_0
                componentsschemas_tool_class_type_1 = cast(Literal["write"], data)
                if componentsschemas_tool_class_type_1 != "write":
                    raise ValueError(
                        f"/components/schemas/ToolClass_type_1 must match const 'write', got '{componentsschemas_tool_class_type_1}'"
                    )
                return componentsschemas_tool_class_type_1
                componentsschemas_tool_class_type_2 = cast(Literal["shell"], data)
                if componentsschemas_tool_class_type_2 != "shell":
                    raise ValueError(
                        f"/components/schemas/ToolClass_type_2 must match const 'shell', got '{componentsschemas_tool_class_type_2}'"
                    )
                return componentsschemas_tool_class_type_2
                componentsschemas_tool_class_type_3 = cast(Literal["web"], data)
                if componentsschemas_tool_class_type_3 != "web":
                    raise ValueError(
                        f"/components/schemas/ToolClass_type_3 must match const 'web', got '{componentsschemas_tool_class_type_3}'"
                    )
                return componentsschemas_tool_class_type_3
                componentsschemas_tool_class_type_4 = cast(Literal["browser"], data)
                if componentsschemas_tool_class_type_4 != "browser":
                    raise ValueError(
                        f"/components/schemas/ToolClass_type_4 must match const 'browser', got '{componentsschemas_tool_class_type_4}'"
                    )
                return componentsschemas_tool_class_type_4
                componentsschemas_tool_class_type_5 = cast(Literal["other"], data)
                if componentsschemas_tool_class_type_5 != "other":
                    raise ValueError(
                        f"/components/schemas/ToolClass_type_5 must match const 'other', got '{componentsschemas_tool_class_type_5}'"
                    )
                return componentsschemas_tool_class_type_5

            result_classes_item = _parse_result_classes_item(result_classes_item_data)

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
