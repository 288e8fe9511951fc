from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.spend_limits_body import SpendLimitsBody


T = TypeVar("T", bound="TokenBudgetBody")


@_attrs_define
class TokenBudgetBody:
    """A token's budget: limits per UTC day and per calendar month.

    Attributes:
        day (None | SpendLimitsBody | Unset):
        month (None | SpendLimitsBody | Unset):
    """

    day: None | SpendLimitsBody | Unset = UNSET
    month: None | SpendLimitsBody | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.spend_limits_body import SpendLimitsBody

        day: dict[str, Any] | None | Unset
        if isinstance(self.day, Unset):
            day = UNSET
        elif isinstance(self.day, SpendLimitsBody):
            day = self.day.to_dict()
        else:
            day = self.day

        month: dict[str, Any] | None | Unset
        if isinstance(self.month, Unset):
            month = UNSET
        elif isinstance(self.month, SpendLimitsBody):
            month = self.month.to_dict()
        else:
            month = self.month

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if day is not UNSET:
            field_dict["day"] = day
        if month is not UNSET:
            field_dict["month"] = month

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.spend_limits_body import SpendLimitsBody

        d = dict(src_dict)

        def _parse_day(data: object) -> None | SpendLimitsBody | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                day_type_0 = SpendLimitsBody.from_dict(data)

                return day_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SpendLimitsBody | Unset, data)

        day = _parse_day(d.pop("day", UNSET))

        def _parse_month(data: object) -> None | SpendLimitsBody | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                month_type_0 = SpendLimitsBody.from_dict(data)

                return month_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SpendLimitsBody | Unset, data)

        month = _parse_month(d.pop("month", UNSET))

        token_budget_body = cls(
            day=day,
            month=month,
        )

        return token_budget_body
