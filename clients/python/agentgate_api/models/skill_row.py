from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.skill_scope import SkillScope, check_skill_scope
from ..types import UNSET, Unset

T = TypeVar("T", bound="SkillRow")


@_attrs_define
class SkillRow:
    """One skill a provider can see.

    Attributes:
        name (str): Its name: the front matter's `name`, else its folder's.
        path (str): Its `SKILL.md`.
        scope (SkillScope): Where a skill was found.
        invocation (str): How a run invokes it with this provider: `native` (the CLI's own
            way) or `prompt` (a prompt naming it).
        provider (str): The provider whose CLI sees it.
        source (str): `scan` (agentgate read the folders) or `cli` (the CLI listed it,
            `--native`).
        description (None | str | Unset): The front matter's `description`.
        error (None | str | Unset): Why the file cannot be used (no front matter, bad YAML, unreadable);
            `null` for a usable skill.
        shadowed (bool | Unset): An earlier skill of the same name wins over this one.
        warnings (list[str] | Unset): What is odd but usable (no description: some CLIs skip the skill).
    """

    name: str
    path: str
    scope: SkillScope
    invocation: str
    provider: str
    source: str
    description: None | str | Unset = UNSET
    error: None | str | Unset = UNSET
    shadowed: bool | Unset = UNSET
    warnings: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        path = self.path

        scope: str = self.scope

        invocation = self.invocation

        provider = self.provider

        source = self.source

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        shadowed = self.shadowed

        warnings: list[str] | Unset = UNSET
        if not isinstance(self.warnings, Unset):
            warnings = self.warnings

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "path": path,
                "scope": scope,
                "invocation": invocation,
                "provider": provider,
                "source": source,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if error is not UNSET:
            field_dict["error"] = error
        if shadowed is not UNSET:
            field_dict["shadowed"] = shadowed
        if warnings is not UNSET:
            field_dict["warnings"] = warnings

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        path = d.pop("path")

        scope = check_skill_scope(d.pop("scope"))

        invocation = d.pop("invocation")

        provider = d.pop("provider")

        source = d.pop("source")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        shadowed = d.pop("shadowed", UNSET)

        warnings = cast(list[str], d.pop("warnings", UNSET))

        skill_row = cls(
            name=name,
            path=path,
            scope=scope,
            invocation=invocation,
            provider=provider,
            source=source,
            description=description,
            error=error,
            shadowed=shadowed,
            warnings=warnings,
        )

        skill_row.additional_properties = d
        return skill_row

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
