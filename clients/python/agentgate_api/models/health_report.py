from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.provider_health import ProviderHealth
    from ..models.sandbox_health import SandboxHealth


T = TypeVar("T", bound="HealthReport")


@_attrs_define
class HealthReport:
    """What `agentgate health --json` prints and `GET /v1/health` answers.

    Attributes:
        providers (list[ProviderHealth]): One entry per provider checked, in the order given.
        sandbox (SandboxHealth): What `agentgate health` reports of the sandbox.
    """

    providers: list[ProviderHealth]
    sandbox: SandboxHealth
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        providers = []
        for providers_item_data in self.providers:
            providers_item = providers_item_data.to_dict()
            providers.append(providers_item)

        sandbox = self.sandbox.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "providers": providers,
                "sandbox": sandbox,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.provider_health import ProviderHealth
        from ..models.sandbox_health import SandboxHealth

        d = dict(src_dict)
        providers = []
        _providers = d.pop("providers")
        for providers_item_data in _providers:
            providers_item = ProviderHealth.from_dict(providers_item_data)

            providers.append(providers_item)

        sandbox = SandboxHealth.from_dict(d.pop("sandbox"))

        health_report = cls(
            providers=providers,
            sandbox=sandbox,
        )

        health_report.additional_properties = d
        return health_report

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
