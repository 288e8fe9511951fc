from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.feature_flags import FeatureFlags


T = TypeVar("T", bound="ProviderEntry")


@_attrs_define
class ProviderEntry:
    """One provider.

    Attributes:
        adapter_kind (str): `builtin` or `config`.
        binary_env (str): The variable that may name the executable.
        binary_found (bool): Whether the executable was found.
        binary_name (str): The executable looked up on PATH.
        features (FeatureFlags): What an adapter supports.
        name (str): The provider's name.
        verification (str): How far agentgate's support of the CLI is verified.
        binary (None | str | Unset): The executable's path, or null when not found.
        binary_detail (None | str | Unset): Why it was not found.
    """

    adapter_kind: str
    binary_env: str
    binary_found: bool
    binary_name: str
    features: FeatureFlags
    name: str
    verification: str
    binary: None | str | Unset = UNSET
    binary_detail: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        adapter_kind = self.adapter_kind

        binary_env = self.binary_env

        binary_found = self.binary_found

        binary_name = self.binary_name

        features = self.features.to_dict()

        name = self.name

        verification = self.verification

        binary: None | str | Unset
        if isinstance(self.binary, Unset):
            binary = UNSET
        else:
            binary = self.binary

        binary_detail: None | str | Unset
        if isinstance(self.binary_detail, Unset):
            binary_detail = UNSET
        else:
            binary_detail = self.binary_detail

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "adapter_kind": adapter_kind,
                "binary_env": binary_env,
                "binary_found": binary_found,
                "binary_name": binary_name,
                "features": features,
                "name": name,
                "verification": verification,
            }
        )
        if binary is not UNSET:
            field_dict["binary"] = binary
        if binary_detail is not UNSET:
            field_dict["binary_detail"] = binary_detail

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.feature_flags import FeatureFlags

        d = dict(src_dict)
        adapter_kind = d.pop("adapter_kind")

        binary_env = d.pop("binary_env")

        binary_found = d.pop("binary_found")

        binary_name = d.pop("binary_name")

        features = FeatureFlags.from_dict(d.pop("features"))

        name = d.pop("name")

        verification = d.pop("verification")

        def _parse_binary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        binary = _parse_binary(d.pop("binary", UNSET))

        def _parse_binary_detail(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        binary_detail = _parse_binary_detail(d.pop("binary_detail", UNSET))

        provider_entry = cls(
            adapter_kind=adapter_kind,
            binary_env=binary_env,
            binary_found=binary_found,
            binary_name=binary_name,
            features=features,
            name=name,
            verification=verification,
            binary=binary,
            binary_detail=binary_detail,
        )

        provider_entry.additional_properties = d
        return provider_entry

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
