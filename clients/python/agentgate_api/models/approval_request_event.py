from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.tool_class import ToolClass, check_tool_class
from ..types import UNSET, Unset

T = TypeVar("T", bound="ApprovalRequestEvent")


@_attrs_define
class ApprovalRequestEvent:
    """Body of `approval_request`: the CLI asks before a tool call.

    Attributes:
        class_ (ToolClass): The class of a tool, as `tool_use` events and the envelope's tool activity
            report it. Provider adapters map their tool names onto these.

            - `read`: Reads files or lists, searches the workspace (`Read`, `Grep`, `ls`).
            - `write`: Changes files (`Edit`, `Write`, `apply_patch`).
            - `shell`: Runs a shell command (`Bash`, `exec_command`, `run_shell_command`).
            - `web`: Fetches or searches the web (`WebFetch`, `web_search`).
            - `browser`: Drives a browser (Playwright and similar).
            - `other`: Anything else (MCP tools, todo lists, sub-agents).
        request_id (str): agentgate's id of the request (the answer route's `{request_id}`).
        tool (str): The tool's name as the CLI gave it.
        command (None | str | Unset): The command it runs.
        input_ (Any | Unset): The tool call's input as the CLI gave it (secrets redacted).
        paths (list[str] | Unset): The paths it reads or writes, as given.
        tool_use_id (None | str | Unset): The id of the tool call in the stream (`tool_use.id`), if known.
    """

    class_: ToolClass
    request_id: str
    tool: str
    command: None | str | Unset = UNSET
    input_: Any | Unset = UNSET
    paths: list[str] | Unset = UNSET
    tool_use_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        class_: str = self.class_

        request_id = self.request_id

        tool = self.tool

        command: None | str | Unset
        if isinstance(self.command, Unset):
            command = UNSET
        else:
            command = self.command

        input_ = self.input_

        paths: list[str] | Unset = UNSET
        if not isinstance(self.paths, Unset):
            paths = self.paths

        tool_use_id: None | str | Unset
        if isinstance(self.tool_use_id, Unset):
            tool_use_id = UNSET
        else:
            tool_use_id = self.tool_use_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "class": class_,
                "request_id": request_id,
                "tool": tool,
            }
        )
        if command is not UNSET:
            field_dict["command"] = command
        if input_ is not UNSET:
            field_dict["input"] = input_
        if paths is not UNSET:
            field_dict["paths"] = paths
        if tool_use_id is not UNSET:
            field_dict["tool_use_id"] = tool_use_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        class_ = check_tool_class(d.pop("class"))

        request_id = d.pop("request_id")

        tool = d.pop("tool")

        def _parse_command(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        command = _parse_command(d.pop("command", UNSET))

        input_ = d.pop("input", UNSET)

        paths = cast(list[str], d.pop("paths", UNSET))

        def _parse_tool_use_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tool_use_id = _parse_tool_use_id(d.pop("tool_use_id", UNSET))

        approval_request_event = cls(
            class_=class_,
            request_id=request_id,
            tool=tool,
            command=command,
            input_=input_,
            paths=paths,
            tool_use_id=tool_use_id,
        )

        approval_request_event.additional_properties = d
        return approval_request_event

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
