from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CostCardEntry")


@_attrs_define
class CostCardEntry:
    """The rate card entry that priced an attempt.

    Attributes:
        model (str): The entry's model name (the canonical one, not the alias matched).
        provider (str): The vendor the entry belongs to (`anthropic`, `openai`, ...).
        version (str): The rate card's `version`; `config` when the entry came from the
            config's `pricing:` section.
    """

    model: str
    provider: str
    version: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        model = self.model

        provider = self.provider

        version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
                "provider": provider,
                "version": version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        model = d.pop("model")

        provider = d.pop("provider")

        version = d.pop("version")

        cost_card_entry = cls(
            model=model,
            provider=provider,
            version=version,
        )

        cost_card_entry.additional_properties = d
        return cost_card_entry

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
