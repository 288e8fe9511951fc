from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.state_counts import StateCounts


T = TypeVar("T", bound="ProviderCounts")


@_attrs_define
class ProviderCounts:
    """One provider's runs.

    Attributes:
        counts (StateCounts): How many runs are in each state.
        provider (str): The provider.
    """

    counts: StateCounts
    provider: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        counts = self.counts.to_dict()

        provider = self.provider

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "counts": counts,
                "provider": provider,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.state_counts import StateCounts

        d = dict(src_dict)
        counts = StateCounts.from_dict(d.pop("counts"))

        provider = d.pop("provider")

        provider_counts = cls(
            counts=counts,
            provider=provider,
        )

        provider_counts.additional_properties = d
        return provider_counts

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
