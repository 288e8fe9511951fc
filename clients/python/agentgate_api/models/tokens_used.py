from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TokensUsed")


@_attrs_define
class TokensUsed:
    """The envelope's `tokens_used`: the wrapper's token figures, with
    [`Usage`]'s semantics.

        Attributes:
            cache_creation_input_tokens (int): The part of `input_tokens` written to the prompt cache. Default: 0.
            cache_read_input_tokens (int): The part of `input_tokens` read from the prompt cache. Default: 0.
            cost_usd (float | None): Cost in US dollars: the rate card's price of these tokens where the
                card prices the model, else the CLI's own figure, else `null` (see
                the envelope's `cost`).
            estimated (bool): Whether the figures are estimates rather than provider-reported. Default: False.
            estimated_output_tokens (int): Output tokens estimated from the response's length (characters / 4,
                at least 1 for a non-empty response), whether or not the provider
                reported `output_tokens`. Default: 0.
            input_tokens (int): All billed input tokens, cache reads and writes included. Default: 0.
            output_tokens (int): All generated tokens, reasoning included. Default: 0.
            total_tokens (int): `input_tokens` + `output_tokens`. Default: 0.
            cache_creation_1h_input_tokens (int | Unset): The part of `cache_creation_input_tokens` written with a 1-hour
                lifetime (priced at the 1-hour rate; the rest at the 5-minute
                rate); absent when 0: no 1-hour writes, or a source that does not
                tell the lifetimes apart.
    """

    cost_usd: float | None
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    estimated: bool = False
    estimated_output_tokens: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cache_creation_1h_input_tokens: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cache_creation_input_tokens = self.cache_creation_input_tokens

        cache_read_input_tokens = self.cache_read_input_tokens

        cost_usd: float | None
        cost_usd = self.cost_usd

        estimated = self.estimated

        estimated_output_tokens = self.estimated_output_tokens

        input_tokens = self.input_tokens

        output_tokens = self.output_tokens

        total_tokens = self.total_tokens

        cache_creation_1h_input_tokens = self.cache_creation_1h_input_tokens

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cache_creation_input_tokens": cache_creation_input_tokens,
                "cache_read_input_tokens": cache_read_input_tokens,
                "cost_usd": cost_usd,
                "estimated": estimated,
                "estimated_output_tokens": estimated_output_tokens,
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "total_tokens": total_tokens,
            }
        )
        if cache_creation_1h_input_tokens is not UNSET:
            field_dict["cache_creation_1h_input_tokens"] = (
                cache_creation_1h_input_tokens
            )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        cache_creation_input_tokens = d.pop("cache_creation_input_tokens")

        cache_read_input_tokens = d.pop("cache_read_input_tokens")

        def _parse_cost_usd(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        cost_usd = _parse_cost_usd(d.pop("cost_usd"))

        estimated = d.pop("estimated")

        estimated_output_tokens = d.pop("estimated_output_tokens")

        input_tokens = d.pop("input_tokens")

        output_tokens = d.pop("output_tokens")

        total_tokens = d.pop("total_tokens")

        cache_creation_1h_input_tokens = d.pop("cache_creation_1h_input_tokens", UNSET)

        tokens_used = cls(
            cache_creation_input_tokens=cache_creation_input_tokens,
            cache_read_input_tokens=cache_read_input_tokens,
            cost_usd=cost_usd,
            estimated=estimated,
            estimated_output_tokens=estimated_output_tokens,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            total_tokens=total_tokens,
            cache_creation_1h_input_tokens=cache_creation_1h_input_tokens,
        )

        tokens_used.additional_properties = d
        return tokens_used

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
