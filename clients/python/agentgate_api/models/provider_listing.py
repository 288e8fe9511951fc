from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.agent_entry import AgentEntry
    from ..models.chain_entry import ChainEntry
    from ..models.config_info import ConfigInfo
    from ..models.provider_entry import ProviderEntry


T = TypeVar("T", bound="ProviderListing")


@_attrs_define
class ProviderListing:
    """The listing: the config it comes from and its providers.

    Attributes:
        agents (list[AgentEntry]): The config's agents, in the file's order.
        chains (list[ChainEntry]): The config's failover chains, in the file's order.
        config (ConfigInfo): Where the config comes from.
        providers (list[ProviderEntry]): The providers, built-in ones first, then the config's.
    """

    agents: list[AgentEntry]
    chains: list[ChainEntry]
    config: ConfigInfo
    providers: list[ProviderEntry]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agents = []
        for agents_item_data in self.agents:
            agents_item = agents_item_data.to_dict()
            agents.append(agents_item)

        chains = []
        for chains_item_data in self.chains:
            chains_item = chains_item_data.to_dict()
            chains.append(chains_item)

        config = self.config.to_dict()

        providers = []
        for providers_item_data in self.providers:
            providers_item = providers_item_data.to_dict()
            providers.append(providers_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agents": agents,
                "chains": chains,
                "config": config,
                "providers": providers,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.agent_entry import AgentEntry
        from ..models.chain_entry import ChainEntry
        from ..models.config_info import ConfigInfo
        from ..models.provider_entry import ProviderEntry

        d = dict(src_dict)
        agents = []
        _agents = d.pop("agents")
        for agents_item_data in _agents:
            agents_item = AgentEntry.from_dict(agents_item_data)

            agents.append(agents_item)

        chains = []
        _chains = d.pop("chains")
        for chains_item_data in _chains:
            chains_item = ChainEntry.from_dict(chains_item_data)

            chains.append(chains_item)

        config = ConfigInfo.from_dict(d.pop("config"))

        providers = []
        _providers = d.pop("providers")
        for providers_item_data in _providers:
            providers_item = ProviderEntry.from_dict(providers_item_data)

            providers.append(providers_item)

        provider_listing = cls(
            agents=agents,
            chains=chains,
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
