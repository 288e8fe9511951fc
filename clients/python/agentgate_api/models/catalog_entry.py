from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="CatalogEntry")


@_attrs_define
class CatalogEntry:
    """One model a CLI offers.

    Attributes:
        id (str): The id the CLI takes (`openai/gpt-5.1`, `gpt-5.5`).
        aliases (list[str] | Unset): Other names the CLI takes for it (Claude's `sonnet`).
        default (bool | Unset): The CLI's default model.
        default_effort (None | str | Unset): The effort it uses when none is asked for.
        display_name (None | str | Unset): Its name for people, where the CLI gives one.
        efforts (list[str] | Unset): The reasoning efforts it supports (`low`, `medium`, `high`, ...);
            empty when the CLI says nothing of them.
        hidden (bool | Unset): Hidden by the CLI's own listing (listed with `--all` only).
    """

    id: str
    aliases: list[str] | Unset = UNSET
    default: bool | Unset = UNSET
    default_effort: None | str | Unset = UNSET
    display_name: None | str | Unset = UNSET
    efforts: list[str] | Unset = UNSET
    hidden: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        aliases: list[str] | Unset = UNSET
        if not isinstance(self.aliases, Unset):
            aliases = self.aliases

        default = self.default

        default_effort: None | str | Unset
        if isinstance(self.default_effort, Unset):
            default_effort = UNSET
        else:
            default_effort = self.default_effort

        display_name: None | str | Unset
        if isinstance(self.display_name, Unset):
            display_name = UNSET
        else:
            display_name = self.display_name

        efforts: list[str] | Unset = UNSET
        if not isinstance(self.efforts, Unset):
            efforts = self.efforts

        hidden = self.hidden

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
            }
        )
        if aliases is not UNSET:
            field_dict["aliases"] = aliases
        if default is not UNSET:
            field_dict["default"] = default
        if default_effort is not UNSET:
            field_dict["default_effort"] = default_effort
        if display_name is not UNSET:
            field_dict["display_name"] = display_name
        if efforts is not UNSET:
            field_dict["efforts"] = efforts
        if hidden is not UNSET:
            field_dict["hidden"] = hidden

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        aliases = cast(list[str], d.pop("aliases", UNSET))

        default = d.pop("default", UNSET)

        def _parse_default_effort(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        default_effort = _parse_default_effort(d.pop("default_effort", UNSET))

        def _parse_display_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        display_name = _parse_display_name(d.pop("display_name", UNSET))

        efforts = cast(list[str], d.pop("efforts", UNSET))

        hidden = d.pop("hidden", UNSET)

        catalog_entry = cls(
            id=id,
            aliases=aliases,
            default=default,
            default_effort=default_effort,
            display_name=display_name,
            efforts=efforts,
            hidden=hidden,
        )

        catalog_entry.additional_properties = d
        return catalog_entry

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
