from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.envelope import Envelope


T = TypeVar("T", bound="ResultEvent")


@_attrs_define
class ResultEvent:
    """Body of `result`: the run finished. Always the last event of a stream.

    Attributes:
        envelope (Envelope): The final result of a run: what `agentgate run` prints, and what the
            `result` event carries.

            Field-for-field compatible with the shell-wrapper envelope users migrate
            from: every wrapper field keeps its name, type and place; agentgate only
            adds fields. Which fields are present:

            - Wrapper fields are always present, as the wrapper wrote them:
              `response` and `reasoning` are strings, empty when there is none (see
              `metadata.reasoning_available`); `tokens_used` counts are numbers, 0 when
              not reported (see `metadata.token_usage_available`). Where the wrapper
              had no way to say "unknown", agentgate writes `null`: `session_id` before
              the provider gave one, `tokens_used.cost_usd` when the cost is unknown (0
              would claim the run was free), `model_resolution` when the model was used
              as requested, `metadata.tool_activity` when the provider's output cannot
              show tool calls (a plain-text CLI; where it can, a run without tool
              calls has zero counts and `activity_class: none`).
            - `error`, `error_type`, `exit_code` and `recoverable` appear on failure
              only, as in the wrapper: their absence means success.
            - agentgate's additions are always present, `null` when unknown or not
              applicable.

            One difference in meaning: `tokens_used.input_tokens` includes cache reads
            and writes (see [`Usage`]), where the Claude wrapper reported uncached
            input only.
    """

    envelope: Envelope
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        envelope = self.envelope.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "envelope": envelope,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.envelope import Envelope

        d = dict(src_dict)
        envelope = Envelope.from_dict(d.pop("envelope"))

        result_event = cls(
            envelope=envelope,
        )

        result_event.additional_properties = d
        return result_event

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
