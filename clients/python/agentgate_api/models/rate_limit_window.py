from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="RateLimitWindow")


@_attrs_define
class RateLimitWindow:
    """One rate-limit window the API reported in a response's headers.

    Attributes:
        name (str): Which limit, named from its header: `requests`, `tokens`,
            `input_tokens`, `output_tokens` (Anthropic and OpenAI), `5h` and `7d`
            (Anthropic's unified windows), `primary` and `secondary` (Codex's
            usage-percent windows).
        limit (int | None | Unset): The window's size as the API states it (requests or tokens).
        remaining (int | None | Unset): What is left of it.
        resets_at (datetime.datetime | None | Unset): When it resets: RFC 3339, UTC.
        status (None | str | Unset): The API's own status word for the window, where it gives one
            (Anthropic's unified `allowed`, `allowed_warning`, `rejected`).
        utilization (float | None | Unset): How much is used, from 0.0 to 1.0 (given by the API, or
            `1 - remaining / limit`).
    """

    name: str
    limit: int | None | Unset = UNSET
    remaining: int | None | Unset = UNSET
    resets_at: datetime.datetime | None | Unset = UNSET
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
        elif isinstance(self.resets_at, datetime.datetime):
            resets_at = self.resets_at.isoformat()
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

        def _parse_resets_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                resets_at_type_0 = datetime.datetime.fromisoformat(data)

                return resets_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

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

        rate_limit_window = cls(
            name=name,
            limit=limit,
            remaining=remaining,
            resets_at=resets_at,
            status=status,
            utilization=utilization,
        )

        rate_limit_window.additional_properties = d
        return rate_limit_window

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
