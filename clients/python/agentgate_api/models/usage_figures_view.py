from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.usage_figures_view_error_types import UsageFiguresViewErrorTypes


T = TypeVar("T", bound="UsageFiguresView")


@_attrs_define
class UsageFiguresView:
    """The figures of a set of runs.

    Attributes:
        cache_read_tokens (int): Input tokens read from the provider's cache.
        cache_write_tokens (int): Input tokens written to the provider's cache.
        cancelled (int): Runs that were cancelled.
        cost_usd (float): The cost in USD of the runs that recorded one.
        error_types (UsageFiguresViewErrorTypes): Runs by error type, whatever their status.
        failed (int): Runs that failed.
        input_tokens (int): Input tokens (cache reads and writes apart).
        output_tokens (int): Output tokens (reasoning included).
        reasoning_tokens (int): Output tokens spent on reasoning.
        running (int): Runs not ended (or whose process died before recording the end).
        runs (int): How many runs.
        runs_without_cost (int): Runs with no cost recorded (not in `cost_usd`).
        succeeded (int): Runs that succeeded.
        total_tokens (int): Total tokens, as the runs recorded them.
    """

    cache_read_tokens: int
    cache_write_tokens: int
    cancelled: int
    cost_usd: float
    error_types: UsageFiguresViewErrorTypes
    failed: int
    input_tokens: int
    output_tokens: int
    reasoning_tokens: int
    running: int
    runs: int
    runs_without_cost: int
    succeeded: int
    total_tokens: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cache_read_tokens = self.cache_read_tokens

        cache_write_tokens = self.cache_write_tokens

        cancelled = self.cancelled

        cost_usd = self.cost_usd

        error_types = self.error_types.to_dict()

        failed = self.failed

        input_tokens = self.input_tokens

        output_tokens = self.output_tokens

        reasoning_tokens = self.reasoning_tokens

        running = self.running

        runs = self.runs

        runs_without_cost = self.runs_without_cost

        succeeded = self.succeeded

        total_tokens = self.total_tokens

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cache_read_tokens": cache_read_tokens,
                "cache_write_tokens": cache_write_tokens,
                "cancelled": cancelled,
                "cost_usd": cost_usd,
                "error_types": error_types,
                "failed": failed,
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "reasoning_tokens": reasoning_tokens,
                "running": running,
                "runs": runs,
                "runs_without_cost": runs_without_cost,
                "succeeded": succeeded,
                "total_tokens": total_tokens,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.usage_figures_view_error_types import UsageFiguresViewErrorTypes

        d = dict(src_dict)
        cache_read_tokens = d.pop("cache_read_tokens")

        cache_write_tokens = d.pop("cache_write_tokens")

        cancelled = d.pop("cancelled")

        cost_usd = d.pop("cost_usd")

        error_types = UsageFiguresViewErrorTypes.from_dict(d.pop("error_types"))

        failed = d.pop("failed")

        input_tokens = d.pop("input_tokens")

        output_tokens = d.pop("output_tokens")

        reasoning_tokens = d.pop("reasoning_tokens")

        running = d.pop("running")

        runs = d.pop("runs")

        runs_without_cost = d.pop("runs_without_cost")

        succeeded = d.pop("succeeded")

        total_tokens = d.pop("total_tokens")

        usage_figures_view = cls(
            cache_read_tokens=cache_read_tokens,
            cache_write_tokens=cache_write_tokens,
            cancelled=cancelled,
            cost_usd=cost_usd,
            error_types=error_types,
            failed=failed,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            reasoning_tokens=reasoning_tokens,
            running=running,
            runs=runs,
            runs_without_cost=runs_without_cost,
            succeeded=succeeded,
            total_tokens=total_tokens,
        )

        usage_figures_view.additional_properties = d
        return usage_figures_view

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
