from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.limit_view import LimitView
    from ..models.provider_counts import ProviderCounts
    from ..models.queue_sample import QueueSample
    from ..models.state_counts import StateCounts


T = TypeVar("T", bound="QueueView")


@_attrs_define
class QueueView:
    """`GET /v1/queue`: how many runs are in each state, in all and per
    provider, and the running count under each limit.

        Attributes:
            counts (StateCounts): How many runs are in each state.
            executor (bool): Whether this server runs jobs itself: `false` with `serve
                --no-executor` (the workers sharing its store run them; see `GET
                /v1/workers`).
            history (list[QueueSample]): The queued and running counts over the last hour, oldest first,
                read every 30 s by this server since it started (empty at first).
            limits (list[LimitView]): `max_running`, then each provider limit of the config, then each
                session with a run running: the maximum and the runs of this server
                running under it (a job counts against the first of its providers
                whose quota is not known exhausted).
            providers (list[ProviderCounts]): Runs per provider and state, by provider name.
    """

    counts: StateCounts
    executor: bool
    history: list[QueueSample]
    limits: list[LimitView]
    providers: list[ProviderCounts]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        counts = self.counts.to_dict()

        executor = self.executor

        history = []
        for history_item_data in self.history:
            history_item = history_item_data.to_dict()
            history.append(history_item)

        limits = []
        for limits_item_data in self.limits:
            limits_item = limits_item_data.to_dict()
            limits.append(limits_item)

        providers = []
        for providers_item_data in self.providers:
            providers_item = providers_item_data.to_dict()
            providers.append(providers_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "counts": counts,
                "executor": executor,
                "history": history,
                "limits": limits,
                "providers": providers,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.limit_view import LimitView
        from ..models.provider_counts import ProviderCounts
        from ..models.queue_sample import QueueSample
        from ..models.state_counts import StateCounts

        d = dict(src_dict)
        counts = StateCounts.from_dict(d.pop("counts"))

        executor = d.pop("executor")

        history = []
        _history = d.pop("history")
        for history_item_data in _history:
            history_item = QueueSample.from_dict(history_item_data)

            history.append(history_item)

        limits = []
        _limits = d.pop("limits")
        for limits_item_data in _limits:
            limits_item = LimitView.from_dict(limits_item_data)

            limits.append(limits_item)

        providers = []
        _providers = d.pop("providers")
        for providers_item_data in _providers:
            providers_item = ProviderCounts.from_dict(providers_item_data)

            providers.append(providers_item)

        queue_view = cls(
            counts=counts,
            executor=executor,
            history=history,
            limits=limits,
            providers=providers,
        )

        queue_view.additional_properties = d
        return queue_view

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
