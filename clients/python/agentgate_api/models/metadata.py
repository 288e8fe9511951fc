from __future__ import annotations

from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tool_activity import ToolActivity


T = TypeVar("T", bound="Metadata")


@_attrs_define
class Metadata:
    """The envelope's `metadata`.

    Attributes:
        reasoning_absent_reason (Literal['available'] | Literal['error_path'] | Literal['model_not_emitted'] |
            Literal['not_exposed']): Why the envelope's `reasoning` is empty (the wrapper's vocabulary, plus
            `not_exposed`).
        reasoning_available (bool): Whether `reasoning` holds the model's reasoning. Default: False.
        reasoning_source (Literal['none'] | Literal['raw_output'] | Literal['session_log']): Where the envelope's
            `reasoning` came from (the wrapper's vocabulary).
        token_usage_available (bool): Whether `tokens_used` holds figures the provider reported: false when
            it reported none, or when agentgate estimated them (then
            `tokens_used.estimated` is true). Default: False.
        tool_activity (None | ToolActivity): Tool calls of the run; `null` when the provider's output cannot show
            them (a plain-text CLI), zero counts when it can and none ran.
        usage_source (Literal['cli'] | Literal['wire'] | None | Unset): Where `tokens_used` comes from: `wire` when the
            run's gateway read
            the model API's own figures, absent when they are what the CLI
            printed.
    """

    reasoning_absent_reason: Literal[
        "available", "error_path", "model_not_emitted", "not_exposed"
    ]
    reasoning_source: Literal["none", "raw_output", "session_log"]
    tool_activity: None | ToolActivity
    reasoning_available: bool = False
    token_usage_available: bool = False
    usage_source: Literal["cli", "wire"] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.tool_activity import ToolActivity

        reasoning_absent_reason: Literal[
            "available", "error_path", "model_not_emitted", "not_exposed"
        ]
        reasoning_absent_reason = self.reasoning_absent_reason

        reasoning_available = self.reasoning_available

        reasoning_source: Literal["none", "raw_output", "session_log"]
        reasoning_source = self.reasoning_source

        token_usage_available = self.token_usage_available

        tool_activity: dict[str, Any] | None
        if isinstance(self.tool_activity, ToolActivity):
            tool_activity = self.tool_activity.to_dict()
        else:
            tool_activity = self.tool_activity

        usage_source: Literal["cli", "wire"] | None | Unset
        if isinstance(self.usage_source, Unset):
            usage_source = UNSET
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

        def _parse_reasoning_absent_reason(
            data: object,
        ) -> Literal["available", "error_path", "model_not_emitted", "not_exposed"]:
            componentsschemas_reasoning_absent_reason_type_0 = cast(
                Literal["available"], data
            )
            if componentsschemas_reasoning_absent_reason_type_0 != "available":
                raise ValueError(
                    f"/components/schemas/ReasoningAbsentReason_type_0 must match const 'available', got '{componentsschemas_reasoning_absent_reason_type_0}'"
                )
            return componentsschemas_reasoning_absent_reason_type_0
            componentsschemas_reasoning_absent_reason_type_1 = cast(
                Literal["model_not_emitted"], data
            )
            if componentsschemas_reasoning_absent_reason_type_1 != "model_not_emitted":
                raise ValueError(
                    f"/components/schemas/ReasoningAbsentReason_type_1 must match const 'model_not_emitted', got '{componentsschemas_reasoning_absent_reason_type_1}'"
                )
            return componentsschemas_reasoning_absent_reason_type_1
            componentsschemas_reasoning_absent_reason_type_2 = cast(
                Literal["not_exposed"], data
            )
            if componentsschemas_reasoning_absent_reason_type_2 != "not_exposed":
                raise ValueError(
                    f"/components/schemas/ReasoningAbsentReason_type_2 must match const 'not_exposed', got '{componentsschemas_reasoning_absent_reason_type_2}'"
                )
            return componentsschemas_reasoning_absent_reason_type_2
            componentsschemas_reasoning_absent_reason_type_3 = cast(
                Literal["error_path"], data
            )
            if componentsschemas_reasoning_absent_reason_type_3 != "error_path":
                raise ValueError(
                    f"/components/schemas/ReasoningAbsentReason_type_3 must match const 'error_path', got '{componentsschemas_reasoning_absent_reason_type_3}'"
                )
            return componentsschemas_reasoning_absent_reason_type_3

        reasoning_absent_reason = _parse_reasoning_absent_reason(
            d.pop("reasoning_absent_reason")
        )

        reasoning_available = d.pop("reasoning_available")

        def _parse_reasoning_source(
            data: object,
        ) -> Literal["none", "raw_output", "session_log"]:
            componentsschemas_reasoning_source_type_0 = cast(
                Literal["raw_output"], data
            )
            if componentsschemas_reasoning_source_type_0 != "raw_output":
                raise ValueError(
                    f"/components/schemas/ReasoningSource_type_0 must match const 'raw_output', got '{componentsschemas_reasoning_source_type_0}'"
                )
            return componentsschemas_reasoning_source_type_0
            componentsschemas_reasoning_source_type_1 = cast(
                Literal["session_log"], data
            )
            if componentsschemas_reasoning_source_type_1 != "session_log":
                raise ValueError(
                    f"/components/schemas/ReasoningSource_type_1 must match const 'session_log', got '{componentsschemas_reasoning_source_type_1}'"
                )
            return componentsschemas_reasoning_source_type_1
            componentsschemas_reasoning_source_type_2 = cast(Literal["none"], data)
            if componentsschemas_reasoning_source_type_2 != "none":
                raise ValueError(
                    f"/components/schemas/ReasoningSource_type_2 must match const 'none', got '{componentsschemas_reasoning_source_type_2}'"
                )
            return componentsschemas_reasoning_source_type_2

        reasoning_source = _parse_reasoning_source(d.pop("reasoning_source"))

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

        def _parse_usage_source(data: object) -> Literal["cli", "wire"] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            componentsschemas_usage_source_type_0 = cast(Literal["cli"], data)
            if componentsschemas_usage_source_type_0 != "cli":
                raise ValueError(
                    f"/components/schemas/UsageSource_type_0 must match const 'cli', got '{componentsschemas_usage_source_type_0}'"
                )
            return componentsschemas_usage_source_type_0
            componentsschemas_usage_source_type_1 = cast(Literal["wire"], data)
            if componentsschemas_usage_source_type_1 != "wire":
                raise ValueError(
                    f"/components/schemas/UsageSource_type_1 must match const 'wire', got '{componentsschemas_usage_source_type_1}'"
                )
            return componentsschemas_usage_source_type_1
            return cast(Literal["cli", "wire"] | None | Unset, data)

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
