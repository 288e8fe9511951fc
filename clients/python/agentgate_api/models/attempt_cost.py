from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.cost_report import CostReport


T = TypeVar("T", bound="AttemptCost")


@_attrs_define
class AttemptCost:
    """One attempt's cost, priced with its own provider and model.

    Attributes:
        cost (CostReport): How a run's (or one attempt's) cost was worked out.

            `usd` is the envelope's `tokens_used.cost_usd`: the card's figure when
            the card prices the model, else the CLI's, else `null` (never a guess;
            `reason` then says why).
        model (None | str): The attempt's model; `null` when unknown.
        provider (str): The attempt's provider (the CLI).
    """

    cost: CostReport
    model: None | str
    provider: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cost = self.cost.to_dict()

        model: None | str
        model = self.model

        provider = self.provider

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cost": cost,
                "model": model,
                "provider": provider,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.cost_report import CostReport

        d = dict(src_dict)
        cost = CostReport.from_dict(d.pop("cost"))

        def _parse_model(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        model = _parse_model(d.pop("model"))

        provider = d.pop("provider")

        attempt_cost = cls(
            cost=cost,
            model=model,
            provider=provider,
        )

        attempt_cost.additional_properties = d
        return attempt_cost

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
