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

T = TypeVar("T", bound="ToolUseEvent")


@_attrs_define
class ToolUseEvent:
    """Body of `tool_use`: the agent called a tool.

    Attributes:
        class_ (Literal['browser'] | Literal['other'] | Literal['read'] | Literal['shell'] | Literal['web'] |
            Literal['write']): The class of a tool, as `tool_use` events and the envelope's tool activity
            report it. Provider adapters map their tool names onto these.
        id (str): The call id, matching the later `tool_result`. Providers that give no
            id get one made up by agentgate.
        input_ (Any): The call's arguments, as the provider sent them.
        name (str): The tool's name as the provider declares it (`Bash`, `exec_command`, …).
    """

    class_: Literal["browser", "other", "read", "shell", "web", "write"]
    id: str
    input_: Any
    name: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        class_: Literal["browser", "other", "read", "shell", "web", "write"]
        class_ = self.class_

        id = self.id

        input_ = self.input_

        name = self.name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "class": class_,
                "id": id,
                "input": input_,
                "name": name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_class_(
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

        class_ = _parse_class_(d.pop("class"))

        id = d.pop("id")

        input_ = d.pop("input")

        name = d.pop("name")

        tool_use_event = cls(
            class_=class_,
            id=id,
            input_=input_,
            name=name,
        )

        tool_use_event.additional_properties = d
        return tool_use_event

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
