from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.reasoning_absent_reason import (
    ReasoningAbsentReason,
    check_reasoning_absent_reason,
)
from ..models.reasoning_source import ReasoningSource, check_reasoning_source
from ..models.usage_source import UsageSource, check_usage_source
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tool_activity import ToolActivity


T = TypeVar("T", bound="Metadata")


@_attrs_define
class Metadata:
    """The envelope's `metadata`.

    Attributes:
        reasoning_absent_reason (ReasoningAbsentReason): Why the envelope's `reasoning` is empty (the wrapper's
            vocabulary, plus
            `not_exposed`).

            - `available`: It is not empty: reasoning is available.
            - `model_not_emitted`: The model produced no reasoning the provider passed on.
            - `not_exposed`: The provider CLI never exposes reasoning, neither in its output nor in
            a session file agentgate can read.
            - `error_path`: The run failed before any reasoning was seen.
        reasoning_available (bool): Whether `reasoning` holds the model's reasoning. Default: False.
        reasoning_source (ReasoningSource): Where the envelope's `reasoning` came from (the wrapper's vocabulary).

            - `raw_output`: The provider CLI's own output (its `thinking` events).
            - `session_log`: The provider's session file, read after the run.
            - `none`: There is no reasoning.
        token_usage_available (bool): Whether `tokens_used` holds figures the provider reported: false when
            it reported none, or when agentgate estimated them (then
            `tokens_used.estimated` is true). Default: False.
        tool_activity (None | ToolActivity): Tool calls of the run; `null` when the provider's output cannot show
            them (a plain-text CLI), zero counts when it can and none ran.
        usage_source (None | Unset | UsageSource): Where `tokens_used` comes from: `wire` when the run's gateway read
            the model API's own figures, absent when they are what the CLI
            printed.
    """

    reasoning_absent_reason: ReasoningAbsentReason
    reasoning_source: ReasoningSource
    tool_activity: None | ToolActivity
    reasoning_available: bool = False
    token_usage_available: bool = False
    usage_source: None | Unset | UsageSource = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.tool_activity import ToolActivity

        reasoning_absent_reason: str = self.reasoning_absent_reason

        reasoning_available = self.reasoning_available

        reasoning_source: str = self.reasoning_source

        token_usage_available = self.token_usage_available

        tool_activity: dict[str, Any] | None
        if isinstance(self.tool_activity, ToolActivity):
            tool_activity = self.tool_activity.to_dict()
        else:
            tool_activity = self.tool_activity

        usage_source: None | str | Unset
        if isinstance(self.usage_source, Unset):
            usage_source = UNSET
        elif isinstance(self.usage_source, str):
            usage_source = self.usage_source
        else:
            usage_source = self.usage_source

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "reasoning_absent_reason": reasoning_absent_reason,
                "reasoning_available": reasoning_available,
                "reasoning_source": reasoning_source,
                "token_usage_available": token_usage_available,
                "tool_activity": tool_activity,
            }
        )
        if usage_source is not UNSET:
            field_dict["usage_source"] = usage_source

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.tool_activity import ToolActivity

        d = dict(src_dict)
        reasoning_absent_reason = check_reasoning_absent_reason(
            d.pop("reasoning_absent_reason")
        )

        reasoning_available = d.pop("reasoning_available")

        reasoning_source = check_reasoning_source(d.pop("reasoning_source"))

        token_usage_available = d.pop("token_usage_available")

        def _parse_tool_activity(data: object) -> None | ToolActivity:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tool_activity_type_0 = ToolActivity.from_dict(data)

                return tool_activity_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ToolActivity, data)

        tool_activity = _parse_tool_activity(d.pop("tool_activity"))

        def _parse_usage_source(data: object) -> None | Unset | UsageSource:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                usage_source_type_0 = check_usage_source(data)

                return usage_source_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UsageSource, data)

        usage_source = _parse_usage_source(d.pop("usage_source", UNSET))

        metadata = cls(
            reasoning_absent_reason=reasoning_absent_reason,
            reasoning_available=reasoning_available,
            reasoning_source=reasoning_source,
            token_usage_available=token_usage_available,
            tool_activity=tool_activity,
            usage_source=usage_source,
        )

        metadata.additional_properties = d
        return metadata

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
