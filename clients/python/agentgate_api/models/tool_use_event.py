from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.tool_class import ToolClass, check_tool_class

T = TypeVar("T", bound="ToolUseEvent")


@_attrs_define
class ToolUseEvent:
    """Body of `tool_use`: the agent called a tool.

    Attributes:
        class_ (ToolClass): The class of a tool, as `tool_use` events and the envelope's tool activity
            report it. Provider adapters map their tool names onto these.

            - `read`: Reads files or lists, searches the workspace (`Read`, `Grep`, `ls`).
            - `write`: Changes files (`Edit`, `Write`, `apply_patch`).
            - `shell`: Runs a shell command (`Bash`, `exec_command`, `run_shell_command`).
            - `web`: Fetches or searches the web (`WebFetch`, `web_search`).
            - `browser`: Drives a browser (Playwright and similar).
            - `other`: Anything else (MCP tools, todo lists, sub-agents).
        id (str): The call id, matching the later `tool_result`. Providers that give no
            id get one made up by agentgate.
        input_ (Any): The call's arguments, as the provider sent them.
        name (str): The tool's name as the provider declares it (`Bash`, `exec_command`, …).
    """

    class_: ToolClass
    id: str
    input_: Any
    name: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        class_: str = self.class_

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
        class_ = check_tool_class(d.pop("class"))

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
