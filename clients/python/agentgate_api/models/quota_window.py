from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="QuotaWindow")


@_attrs_define
class QuotaWindow:
    """One rate-limit window of a [`ProviderQuota`], as the API reported it in a
    response's headers.

        Attributes:
            name (str): Which limit: `requests`, `tokens`, `input_tokens`, `output_tokens`
                (Anthropic and OpenAI), `5h` and `7d` (Anthropic's unified windows),
                `primary` and `secondary` (Codex's usage-percent windows).
            limit (int | None | Unset): The window's size as the API states it (requests or tokens).
            remaining (int | None | Unset): What is left of it.
            resets_at (None | str | Unset): When it resets (RFC 3339, UTC).
            status (None | str | Unset): The API's own status word for the window (Anthropic's `allowed`,
                `allowed_warning`, `rejected`).
            utilization (float | None | Unset): How much is used, from 0.0 to 1.0: as the API gave it, else
                `1 - remaining / limit`.
    """

    name: str
    limit: int | None | Unset = UNSET
    remaining: int | None | Unset = UNSET
    resets_at: None | str | Unset = UNSET
    status: None | str | Unset = UNSET
    utilization: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        limit: int | None | Unset
        if isinstance(self.limit, Unset):
            limit = UNSET
        else:
            limit = self.limit

        remaining: int | None | Unset
        if isinstance(self.remaining, Unset):
            remaining = UNSET
        else:
            remaining = self.remaining

        resets_at: None | str | Unset
        if isinstance(self.resets_at, Unset):
            resets_at = UNSET
        else:
            resets_at = self.resets_at

        status: None | str | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        else:
            status = self.status

        utilization: float | None | Unset
        if isinstance(self.utilization, Unset):
            utilization = UNSET
        else:
            utilization = self.utilization

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
            }
        )
        if limit is not UNSET:
            field_dict["limit"] = limit
        if remaining is not UNSET:
            field_dict["remaining"] = remaining
        if resets_at is not UNSET:
            field_dict["resets_at"] = resets_at
        if status is not UNSET:
            field_dict["status"] = status
        if utilization is not UNSET:
            field_dict["utilization"] = utilization

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        def _parse_limit(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        limit = _parse_limit(d.pop("limit", UNSET))

        def _parse_remaining(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        remaining = _parse_remaining(d.pop("remaining", UNSET))

        def _parse_resets_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        resets_at = _parse_resets_at(d.pop("resets_at", UNSET))

        def _parse_status(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        status = _parse_status(d.pop("status", UNSET))

        def _parse_utilization(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        utilization = _parse_utilization(d.pop("utilization", UNSET))

        quota_window = cls(
            name=name,
            limit=limit,
            remaining=remaining,
            resets_at=resets_at,
            status=status,
            utilization=utilization,
        )

        quota_window.additional_properties = d
        return quota_window

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
