from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.config_info import ConfigInfo
    from ..models.provider_entry import ProviderEntry


T = TypeVar("T", bound="ProviderListing")


@_attrs_define
class ProviderListing:
    """The listing: the config it comes from and its providers.

    Attributes:
        config (ConfigInfo): Where the config comes from.
        providers (list[ProviderEntry]): The providers, built-in ones first, then the config's.
    """

    config: ConfigInfo
    providers: list[ProviderEntry]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        config = self.config.to_dict()

        providers = []
        for providers_item_data in self.providers:
            providers_item = providers_item_data.to_dict()
            providers.append(providers_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "config": config,
                "providers": providers,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.config_info import ConfigInfo
        from ..models.provider_entry import ProviderEntry

        d = dict(src_dict)
        config = ConfigInfo.from_dict(d.pop("config"))

        providers = []
        _providers = d.pop("providers")
        for providers_item_data in _providers:
            providers_item = ProviderEntry.from_dict(providers_item_data)

            providers.append(providers_item)

        provider_listing = cls(
            config=config,
            providers=providers,
        )

        provider_listing.additional_properties = d
        return provider_listing

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
