from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.run_events_response_200_event import (
    RunEventsResponse200Event,
    check_run_events_response_200_event,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="RunEventsResponse200")


@_attrs_define
class RunEventsResponse200:
    """One SSE message: a protocol event (`event` absent or `message`, `id` its `seq`, `data` its JSON line, an `Event`),
    an answer chunk (no `id`), `requeued` (the job runs again) or `end` (a `StreamEnd`)

        Attributes:
            data (str):
            event (RunEventsResponse200Event | Unset):
            id (str | Unset):
            retry (int | Unset):
    """

    data: str
    event: RunEventsResponse200Event | Unset = UNSET
    id: str | Unset = UNSET
    retry: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = self.data

        event: str | Unset = UNSET
        if not isinstance(self.event, Unset):
            event = self.event

        id = self.id

        retry = self.retry

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
            }
        )
        if event is not UNSET:
            field_dict["event"] = event
        if id is not UNSET:
            field_dict["id"] = id
        if retry is not UNSET:
            field_dict["retry"] = retry

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        data = d.pop("data")

        _event = d.pop("event", UNSET)
        event: RunEventsResponse200Event | Unset
        if isinstance(_event, Unset):
            event = UNSET
        else:
            event = check_run_events_response_200_event(_event)

        id = d.pop("id", UNSET)

        retry = d.pop("retry", UNSET)

        run_events_response_200 = cls(
            data=data,
            event=event,
            id=id,
            retry=retry,
        )

        run_events_response_200.additional_properties = d
        return run_events_response_200

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
