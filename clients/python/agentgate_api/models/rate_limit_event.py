from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.rate_limit_status import RateLimitStatus, check_rate_limit_status
from ..types import UNSET, Unset

T = TypeVar("T", bound="RateLimitEvent")


@_attrs_define
class RateLimitEvent:
    """Body of `rate_limit`: the provider reported the state of a limit.

    Attributes:
        status (RateLimitStatus): Whether a rate or usage limit still admits requests.

            - `allowed`: Requests are admitted.
            - `warning`: Requests are admitted but the limit is close.
            - `rejected`: The limit is reached: requests are refused until `resets_at`.
        resets_at (datetime.datetime | None | Unset): When the limit resets: RFC 3339, UTC.
        utilization (float | None | Unset): How much of the limit is used, from 0.0 to 1.0.
        window (None | str | Unset): Which limit, in the provider's words (`five_hour`, `seven_day`, …).
    """

    status: RateLimitStatus
    resets_at: datetime.datetime | None | Unset = UNSET
    utilization: float | None | Unset = UNSET
    window: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        status: str = self.status

        resets_at: None | str | Unset
        if isinstance(self.resets_at, Unset):
            resets_at = UNSET
        elif isinstance(self.resets_at, datetime.datetime):
            resets_at = self.resets_at.isoformat()
        else:
            resets_at = self.resets_at

        utilization: float | None | Unset
        if isinstance(self.utilization, Unset):
            utilization = UNSET
        else:
            utilization = self.utilization

        window: None | str | Unset
        if isinstance(self.window, Unset):
            window = UNSET
        else:
            window = self.window

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
            }
        )
        if resets_at is not UNSET:
            field_dict["resets_at"] = resets_at
        if utilization is not UNSET:
            field_dict["utilization"] = utilization
        if window is not UNSET:
            field_dict["window"] = window

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        status = check_rate_limit_status(d.pop("status"))

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

        def _parse_utilization(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        utilization = _parse_utilization(d.pop("utilization", UNSET))

        def _parse_window(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        window = _parse_window(d.pop("window", UNSET))

        rate_limit_event = cls(
            status=status,
            resets_at=resets_at,
            utilization=utilization,
            window=window,
        )

        rate_limit_event.additional_properties = d
        return rate_limit_event

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
