from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="StatusEventType6")


@_attrs_define
class StatusEventType6:
    """agentgate's own: the run has spent `warn_at` (80% unless the config
    says otherwise) of one of its budgets (`--max-cost`, `--max-tokens`,
    `budgets:`). The run goes on; past the budget it is stopped with
    `budget`.

        Attributes:
            budget (str): Which budget, in words (`the run's limit`, `the day budget of
                agent reviewer`).
            kind (Literal['budget_warning']):
            limit (float): The budget.
            measure (str): `cost` (USD) or `tokens`.
            share (float): `spent / limit`.
            spent (float): What the budget's window has spent with this run so far.
    """

    budget: str
    kind: Literal["budget_warning"]
    limit: float
    measure: str
    share: float
    spent: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        budget = self.budget

        kind = self.kind

        limit = self.limit

        measure = self.measure

        share = self.share

        spent = self.spent

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "budget": budget,
                "kind": kind,
                "limit": limit,
                "measure": measure,
                "share": share,
                "spent": spent,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        budget = d.pop("budget")

        kind = cast(Literal["budget_warning"], d.pop("kind"))
        if kind != "budget_warning":
            raise ValueError(f"kind must match const 'budget_warning', got '{kind}'")

        limit = d.pop("limit")

        measure = d.pop("measure")

        share = d.pop("share")

        spent = d.pop("spent")

        status_event_type_6 = cls(
            budget=budget,
            kind=kind,
            limit=limit,
            measure=measure,
            share=share,
            spent=spent,
        )

        status_event_type_6.additional_properties = d
        return status_event_type_6

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
