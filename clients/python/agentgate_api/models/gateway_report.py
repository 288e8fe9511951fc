from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.usage import Usage


T = TypeVar("T", bound="GatewayReport")


@_attrs_define
class GatewayReport:
    """The envelope's `gateway`: what the run's gateway saw.

    Attributes:
        cli_usage (None | Usage): The usage the CLI printed, when it printed any.
        differences (list[str]): Each figure where the two disagree, e.g. `output_tokens: wire 120,
            cli 118`.
        key_mode (str): How the CLI reached its model: `api_key` (the gateway holds the key,
            the CLI a stub), `passthrough` (the CLI's own login passed through
            unchanged).
        model_calls (int): Model calls made through the gateway, over all attempts.
        refused_calls (int): Calls the gateway refused (a limit, a wrong stub key). Default: 0.
        upstreams (list[str]): The upstreams the calls went to (scheme, host and port).
        wire_usage (Usage): Token and cost figures of one turn, an attempt or a run, normalized across
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

    cli_usage: None | Usage
    differences: list[str]
    key_mode: str
    model_calls: int
    upstreams: list[str]
    wire_usage: Usage
    refused_calls: int = 0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.usage import Usage

        cli_usage: dict[str, Any] | None
        if isinstance(self.cli_usage, Usage):
            cli_usage = self.cli_usage.to_dict()
        else:
            cli_usage = self.cli_usage

        differences = self.differences

        key_mode = self.key_mode

        model_calls = self.model_calls

        refused_calls = self.refused_calls

        upstreams = self.upstreams

        wire_usage = self.wire_usage.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cli_usage": cli_usage,
                "differences": differences,
                "key_mode": key_mode,
                "model_calls": model_calls,
                "refused_calls": refused_calls,
                "upstreams": upstreams,
                "wire_usage": wire_usage,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.usage import Usage

        d = dict(src_dict)

        def _parse_cli_usage(data: object) -> None | Usage:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                cli_usage_type_0 = Usage.from_dict(data)

                return cli_usage_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Usage, data)

        cli_usage = _parse_cli_usage(d.pop("cli_usage"))

        differences = cast(list[str], d.pop("differences"))

        key_mode = d.pop("key_mode")

        model_calls = d.pop("model_calls")

        refused_calls = d.pop("refused_calls")

        upstreams = cast(list[str], d.pop("upstreams"))

        wire_usage = Usage.from_dict(d.pop("wire_usage"))

        gateway_report = cls(
            cli_usage=cli_usage,
            differences=differences,
            key_mode=key_mode,
            model_calls=model_calls,
            refused_calls=refused_calls,
            upstreams=upstreams,
            wire_usage=wire_usage,
        )

        gateway_report.additional_properties = d
        return gateway_report

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
