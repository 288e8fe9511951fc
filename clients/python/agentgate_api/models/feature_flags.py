from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="FeatureFlags")


@_attrs_define
class FeatureFlags:
    """What an adapter supports.

    Attributes:
        cost (bool): Cost is reported.
        permission_modes (bool): Permission modes are supported.
        reasoning (bool): Reasoning is reported.
        resume (bool): Sessions can be resumed.
        streaming (bool): Events arrive as the CLI works.
        usage (bool): Token usage is reported.
    """

    cost: bool
    permission_modes: bool
    reasoning: bool
    resume: bool
    streaming: bool
    usage: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cost = self.cost

        permission_modes = self.permission_modes

        reasoning = self.reasoning

        resume = self.resume

        streaming = self.streaming

        usage = self.usage

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cost": cost,
                "permission_modes": permission_modes,
                "reasoning": reasoning,
                "resume": resume,
                "streaming": streaming,
                "usage": usage,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        cost = d.pop("cost")

        permission_modes = d.pop("permission_modes")

        reasoning = d.pop("reasoning")

        resume = d.pop("resume")

        streaming = d.pop("streaming")

        usage = d.pop("usage")

        feature_flags = cls(
            cost=cost,
            permission_modes=permission_modes,
            reasoning=reasoning,
            resume=resume,
            streaming=streaming,
            usage=usage,
        )

        feature_flags.additional_properties = d
        return feature_flags

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
