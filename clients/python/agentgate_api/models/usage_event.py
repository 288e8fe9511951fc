from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.usage_scope import UsageScope, check_usage_scope

if TYPE_CHECKING:
    from ..models.usage import Usage


T = TypeVar("T", bound="UsageEvent")


@_attrs_define
class UsageEvent:
    """Body of `usage`: token and cost figures.

    Attributes:
        scope (UsageScope): What the figures of a `usage` event cover.

            - `turn`: One model turn or step: consumers add these up.
            - `total`: Totals of the attempt so far: they replace earlier figures.
        usage (Usage): Token and cost figures of one turn, an attempt or a run, normalized across
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
    """

    scope: UsageScope
    usage: Usage
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        scope: str = self.scope

        usage = self.usage.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "scope": scope,
                "usage": usage,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.usage import Usage

        d = dict(src_dict)
        scope = check_usage_scope(d.pop("scope"))

        usage = Usage.from_dict(d.pop("usage"))

        usage_event = cls(
            scope=scope,
            usage=usage,
        )

        usage_event.additional_properties = d
        return usage_event

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
