from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Usage")


@_attrs_define
class Usage:
    """Token and cost figures of one turn, an attempt or a run, normalized across
    providers.

    Semantics, the same for every provider:

    - `input_tokens`: every input token the model processed and the provider
      billed, each counted once: uncached input, plus cache reads, plus cache
      writes. Claude reports these three apart (agentgate adds them up);
      OpenAI/Codex and Gemini already include cached tokens in their input
      figure. `cache_read_input_tokens` and `cache_creation_input_tokens` are
      therefore parts of `input_tokens`, never on top of it.
    - `cache_creation_1h_input_tokens`: the part of
      `cache_creation_input_tokens` written with a 1-hour lifetime
      (Anthropic's `cache_creation.ephemeral_1h_input_tokens`), priced at
      a higher rate than the 5-minute writes that make up the rest. Part
      of the cache writes, never on top of them; 0 when there were none or
      the source does not tell the lifetimes apart (then every write is a
      5-minute one); absent from the JSON when 0.
    - `output_tokens`: every generated token, reasoning included;
      `reasoning_tokens` is the part of it spent on reasoning.
    - `total_tokens` = `input_tokens` + `output_tokens`.
    - `context_tokens`: how full the model's context was after the last model
      call: that call's input tokens (cache included) plus its output.
      Unlike the other counts it is a level, not a sum: `None` when unknown.
    - `cost_usd`: the provider's reported cost, or agentgate's computed one;
      `None` when neither is known (zero means free, not unknown).
    - `estimated`: the counts were estimated (e.g. from text length) rather
      than reported by the provider.

    Counts a provider does not report are 0.

        Attributes:
            cache_creation_input_tokens (int): The part of `input_tokens` written to the prompt cache. Default: 0.
            cache_read_input_tokens (int): The part of `input_tokens` read from the prompt cache. Default: 0.
            context_tokens (int | None): Context size after the last model call, `null` when unknown.
            cost_usd (float | None): Cost in US dollars, `null` when unknown.
            estimated (bool): Whether the figures are estimates rather than provider-reported. Default: False.
            input_tokens (int): All billed input tokens, cache reads and writes included. Default: 0.
            output_tokens (int): All generated tokens, reasoning included. Default: 0.
            reasoning_tokens (int): The part of `output_tokens` spent on reasoning. Default: 0.
            total_tokens (int): `input_tokens` + `output_tokens`. Default: 0.
            cache_creation_1h_input_tokens (int | Unset): The part of `cache_creation_input_tokens` written with a 1-hour
                lifetime (the rest has a 5-minute one); absent when 0.
    """

    context_tokens: int | None
    cost_usd: float | None
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    estimated: bool = False
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    total_tokens: int = 0
    cache_creation_1h_input_tokens: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cache_creation_input_tokens = self.cache_creation_input_tokens

        cache_read_input_tokens = self.cache_read_input_tokens

        context_tokens: int | None
        context_tokens = self.context_tokens

        cost_usd: float | None
        cost_usd = self.cost_usd

        estimated = self.estimated

        input_tokens = self.input_tokens

        output_tokens = self.output_tokens

        reasoning_tokens = self.reasoning_tokens

        total_tokens = self.total_tokens

        cache_creation_1h_input_tokens = self.cache_creation_1h_input_tokens

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cache_creation_input_tokens": cache_creation_input_tokens,
                "cache_read_input_tokens": cache_read_input_tokens,
                "context_tokens": context_tokens,
                "cost_usd": cost_usd,
                "estimated": estimated,
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "reasoning_tokens": reasoning_tokens,
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

        def _parse_context_tokens(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        context_tokens = _parse_context_tokens(d.pop("context_tokens"))

        def _parse_cost_usd(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        cost_usd = _parse_cost_usd(d.pop("cost_usd"))

        estimated = d.pop("estimated")

        input_tokens = d.pop("input_tokens")

        output_tokens = d.pop("output_tokens")

        reasoning_tokens = d.pop("reasoning_tokens")

        total_tokens = d.pop("total_tokens")

        cache_creation_1h_input_tokens = d.pop("cache_creation_1h_input_tokens", UNSET)

        usage = cls(
            cache_creation_input_tokens=cache_creation_input_tokens,
            cache_read_input_tokens=cache_read_input_tokens,
            context_tokens=context_tokens,
            cost_usd=cost_usd,
            estimated=estimated,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            reasoning_tokens=reasoning_tokens,
            total_tokens=total_tokens,
            cache_creation_1h_input_tokens=cache_creation_1h_input_tokens,
        )

        usage.additional_properties = d
        return usage

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
