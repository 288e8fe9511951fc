from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.attempt_view import AttemptView


T = TypeVar("T", bound="DeliveryView")


@_attrs_define
class DeliveryView:
    """One delivery: a message to one URL.

    Attributes:
        attempts (list[AttemptView]): The tries, oldest first.
        created_at (datetime.datetime): When the message was written (RFC 3339).
        event (str): The event, e.g. `run.ended`.
        id (int): The delivery's id.
        message_id (str): The message's id: the `webhook-id` header, the same on every try.
        status (str): `pending`, `delivered`, `refused` (never sent: the address is not
            allowed) or `failed` (every try failed).
        url (str): The destination.
        job_id (None | str | Unset): The job (run) the event is about, if any.
        next_attempt_at (datetime.datetime | None | Unset): When a pending delivery is tried next (RFC 3339).
    """

    attempts: list[AttemptView]
    created_at: datetime.datetime
    event: str
    id: int
    message_id: str
    status: str
    url: str
    job_id: None | str | Unset = UNSET
    next_attempt_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempts = []
        for attempts_item_data in self.attempts:
            attempts_item = attempts_item_data.to_dict()
            attempts.append(attempts_item)

        created_at = self.created_at.isoformat()

        event = self.event

        id = self.id

        message_id = self.message_id

        status = self.status

        url = self.url

        job_id: None | str | Unset
        if isinstance(self.job_id, Unset):
            job_id = UNSET
        else:
            job_id = self.job_id

        next_attempt_at: None | str | Unset
        if isinstance(self.next_attempt_at, Unset):
            next_attempt_at = UNSET
        elif isinstance(self.next_attempt_at, datetime.datetime):
            next_attempt_at = self.next_attempt_at.isoformat()
        else:
            next_attempt_at = self.next_attempt_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "created_at": created_at,
                "event": event,
                "id": id,
                "message_id": message_id,
                "status": status,
                "url": url,
            }
        )
        if job_id is not UNSET:
            field_dict["job_id"] = job_id
        if next_attempt_at is not UNSET:
            field_dict["next_attempt_at"] = next_attempt_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.attempt_view import AttemptView

        d = dict(src_dict)
        attempts = []
        _attempts = d.pop("attempts")
        for attempts_item_data in _attempts:
            attempts_item = AttemptView.from_dict(attempts_item_data)

            attempts.append(attempts_item)

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        event = d.pop("event")

        id = d.pop("id")

        message_id = d.pop("message_id")

        status = d.pop("status")

        url = d.pop("url")

        def _parse_job_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        job_id = _parse_job_id(d.pop("job_id", UNSET))

        def _parse_next_attempt_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_attempt_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_attempt_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("next_attempt_at", UNSET))

        delivery_view = cls(
            attempts=attempts,
            created_at=created_at,
            event=event,
            id=id,
            message_id=message_id,
            status=status,
            url=url,
            job_id=job_id,
            next_attempt_at=next_attempt_at,
        )

        delivery_view.additional_properties = d
        return delivery_view

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
