from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="SpendLimitsBody")


@_attrs_define
class SpendLimitsBody:
    """A limit in USD and one in tokens (`input + output`).

    Attributes:
        max_cost_usd (float | None | Unset): The most USD, 0 or more.
        max_tokens (int | None | Unset): The most tokens.
    """

    max_cost_usd: float | None | Unset = UNSET
    max_tokens: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        max_cost_usd: float | None | Unset
        if isinstance(self.max_cost_usd, Unset):
            max_cost_usd = UNSET
        else:
            max_cost_usd = self.max_cost_usd

        max_tokens: int | None | Unset
        if isinstance(self.max_tokens, Unset):
            max_tokens = UNSET
        else:
            max_tokens = self.max_tokens

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if max_cost_usd is not UNSET:
            field_dict["max_cost_usd"] = max_cost_usd
        if max_tokens is not UNSET:
            field_dict["max_tokens"] = max_tokens

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_max_cost_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        max_cost_usd = _parse_max_cost_usd(d.pop("max_cost_usd", UNSET))

        def _parse_max_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_tokens = _parse_max_tokens(d.pop("max_tokens", UNSET))

        spend_limits_body = cls(
            max_cost_usd=max_cost_usd,
            max_tokens=max_tokens,
        )

        return spend_limits_body
