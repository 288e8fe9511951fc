from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.catalog_entry import CatalogEntry


T = TypeVar("T", bound="ProviderModels")


@_attrs_define
class ProviderModels:
    """One provider's catalog, as `agentgate models --json` prints it.

    Attributes:
        cached (bool): Read from the cache (no CLI started for this answer).
        models (list[CatalogEntry]): The models (hidden ones only when asked for all).
        provider (str): The provider.
        source (str): `cli` (the CLI listed it), `static` (agentgate's table) or `none`
            (agentgate knows no catalog of it).
        stale (bool): The last refresh failed: this is the older copy (see `error`).
        binary (None | str | Unset): The binary that listed it.
        error (None | str | Unset): Why the catalog could not be fetched (with no copy: `models` is
            empty).
        fetched_at (None | str | Unset): When the CLI listed it (RFC 3339); absent for a table.
    """

    cached: bool
    models: list[CatalogEntry]
    provider: str
    source: str
    stale: bool
    binary: None | str | Unset = UNSET
    error: None | str | Unset = UNSET
    fetched_at: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cached = self.cached

        models = []
        for models_item_data in self.models:
            models_item = models_item_data.to_dict()
            models.append(models_item)

        provider = self.provider

        source = self.source

        stale = self.stale

        binary: None | str | Unset
        if isinstance(self.binary, Unset):
            binary = UNSET
        else:
            binary = self.binary

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        fetched_at: None | str | Unset
        if isinstance(self.fetched_at, Unset):
            fetched_at = UNSET
        else:
            fetched_at = self.fetched_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cached": cached,
                "models": models,
                "provider": provider,
                "source": source,
                "stale": stale,
            }
        )
        if binary is not UNSET:
            field_dict["binary"] = binary
        if error is not UNSET:
            field_dict["error"] = error
        if fetched_at is not UNSET:
            field_dict["fetched_at"] = fetched_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.catalog_entry import CatalogEntry

        d = dict(src_dict)
        cached = d.pop("cached")

        models = []
        _models = d.pop("models")
        for models_item_data in _models:
            models_item = CatalogEntry.from_dict(models_item_data)

            models.append(models_item)

        provider = d.pop("provider")

        source = d.pop("source")

        stale = d.pop("stale")

        def _parse_binary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        binary = _parse_binary(d.pop("binary", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_fetched_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        fetched_at = _parse_fetched_at(d.pop("fetched_at", UNSET))

        provider_models = cls(
            cached=cached,
            models=models,
            provider=provider,
            source=source,
            stale=stale,
            binary=binary,
            error=error,
            fetched_at=fetched_at,
        )

        provider_models.additional_properties = d
        return provider_models

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
