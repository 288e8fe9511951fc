from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="EffortReport")


@_attrs_define
class EffortReport:
    """What became of a run's reasoning effort and thinking budget on the
    provider that answered.

        Attributes:
            applied (None | str): The level the CLI was given; `null` when it was left out (the CLI
                or the model takes none, or `unsupported_effort: drop`).
            effort_resolution (None | str): What agentgate changed, and why, when it did not pass what was
                asked as asked; `null` otherwise.
            requested (None | str): The level asked for; `null` when only a budget was.
            thinking_budget (int | None): The thinking budget in tokens the CLI was given; `null` when none
                was asked for or the CLI takes none.
            via (list[str]): How the CLI was told, e.g. `--effort`, `-c model_reasoning_effort`,
                `MAX_THINKING_TOKENS`; empty when nothing was passed.
    """

    applied: None | str
    effort_resolution: None | str
    requested: None | str
    thinking_budget: int | None
    via: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        applied: None | str
        applied = self.applied

        effort_resolution: None | str
        effort_resolution = self.effort_resolution

        requested: None | str
        requested = self.requested

        thinking_budget: int | None
        thinking_budget = self.thinking_budget

        via = self.via

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "applied": applied,
                "effort_resolution": effort_resolution,
                "requested": requested,
                "thinking_budget": thinking_budget,
                "via": via,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_applied(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        applied = _parse_applied(d.pop("applied"))

        def _parse_effort_resolution(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        effort_resolution = _parse_effort_resolution(d.pop("effort_resolution"))

        def _parse_requested(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        requested = _parse_requested(d.pop("requested"))

        def _parse_thinking_budget(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        thinking_budget = _parse_thinking_budget(d.pop("thinking_budget"))

        via = cast(list[str], d.pop("via"))

        effort_report = cls(
            applied=applied,
            effort_resolution=effort_resolution,
            requested=requested,
            thinking_budget=thinking_budget,
            via=via,
        )

        effort_report.additional_properties = d
        return effort_report

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
