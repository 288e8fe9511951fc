from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="TaskInput")


@_attrs_define
class TaskInput:
    """A task input: what `agentgate run` reads from stdin as JSON.

    Attributes:
        prompt (str): What to do (not blank).
        context (Any | Unset): Context for the task: a string as is, other JSON pretty-printed.
        file_name (None | str | Unset): The name of the file the task came from.
        files (list[str] | Unset): Context files (absolute paths).
        persona (None | str | Unset): The persona (unless the run's `persona` gives one).
    """

    prompt: str
    context: Any | Unset = UNSET
    file_name: None | str | Unset = UNSET
    files: list[str] | Unset = UNSET
    persona: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        prompt = self.prompt

        context = self.context

        file_name: None | str | Unset
        if isinstance(self.file_name, Unset):
            file_name = UNSET
        else:
            file_name = self.file_name

        files: list[str] | Unset = UNSET
        if not isinstance(self.files, Unset):
            files = self.files

        persona: None | str | Unset
        if isinstance(self.persona, Unset):
            persona = UNSET
        else:
            persona = self.persona

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "prompt": prompt,
            }
        )
        if context is not UNSET:
            field_dict["context"] = context
        if file_name is not UNSET:
            field_dict["file_name"] = file_name
        if files is not UNSET:
            field_dict["files"] = files
        if persona is not UNSET:
            field_dict["persona"] = persona

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        prompt = d.pop("prompt")

        context = d.pop("context", UNSET)

        def _parse_file_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        file_name = _parse_file_name(d.pop("file_name", UNSET))

        files = cast(list[str], d.pop("files", UNSET))

        def _parse_persona(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        persona = _parse_persona(d.pop("persona", UNSET))

        task_input = cls(
            prompt=prompt,
            context=context,
            file_name=file_name,
            files=files,
            persona=persona,
        )

        return task_input
