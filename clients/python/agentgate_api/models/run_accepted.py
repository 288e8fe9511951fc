from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.run_state import RunState, check_run_state
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.envelope import Envelope


T = TypeVar("T", bound="RunAccepted")


@_attrs_define
class RunAccepted:
    """The answer to `POST /v1/runs` and to a cancel.

    Attributes:
        cancel_requested (bool): A cancel was asked while it ran.
        created (bool): Whether this request created the run (false: an idempotency key
            repeated, or a cancel).
        created_at (datetime.datetime): When the run was submitted.
        not_before (datetime.datetime): Not started before this time.
        priority (int): Higher runs first.
        providers (list[str]): The providers of its plan, in failover order.
        run_id (str): The run's id (also its job's).
        status (RunState): Where a run is. A queued run waits to be claimed (see `not_before` and
            `waiting_for`); the last four are final.
        envelope (Envelope | None | Unset):
        idempotency_key (None | str | Unset): The caller's key.
        session (None | str | Unset): Its logical session.
    """

    cancel_requested: bool
    created: bool
    created_at: datetime.datetime
    not_before: datetime.datetime
    priority: int
    providers: list[str]
    run_id: str
    status: RunState
    envelope: Envelope | None | Unset = UNSET
    idempotency_key: None | str | Unset = UNSET
    session: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.envelope import Envelope

        cancel_requested = self.cancel_requested

        created = self.created

        created_at = self.created_at.isoformat()

        not_before = self.not_before.isoformat()

        priority = self.priority

        providers = self.providers

        run_id = self.run_id

        status: str = self.status

        envelope: dict[str, Any] | None | Unset
        if isinstance(self.envelope, Unset):
            envelope = UNSET
        elif isinstance(self.envelope, Envelope):
            envelope = self.envelope.to_dict()
        else:
            envelope = self.envelope

        idempotency_key: None | str | Unset
        if isinstance(self.idempotency_key, Unset):
            idempotency_key = UNSET
        else:
            idempotency_key = self.idempotency_key

        session: None | str | Unset
        if isinstance(self.session, Unset):
            session = UNSET
        else:
            session = self.session

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cancel_requested": cancel_requested,
                "created": created,
                "created_at": created_at,
                "not_before": not_before,
                "priority": priority,
                "providers": providers,
                "run_id": run_id,
                "status": status,
            }
        )
        if envelope is not UNSET:
            field_dict["envelope"] = envelope
        if idempotency_key is not UNSET:
            field_dict["idempotency_key"] = idempotency_key
        if session is not UNSET:
            field_dict["session"] = session

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.envelope import Envelope

        d = dict(src_dict)
        cancel_requested = d.pop("cancel_requested")

        created = d.pop("created")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        not_before = datetime.datetime.fromisoformat(d.pop("not_before"))

        priority = d.pop("priority")

        providers = cast(list[str], d.pop("providers"))

        run_id = d.pop("run_id")

        status = check_run_state(d.pop("status"))

        def _parse_envelope(data: object) -> Envelope | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                envelope_type_1 = Envelope.from_dict(data)

                return envelope_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Envelope | None | Unset, data)

        envelope = _parse_envelope(d.pop("envelope", UNSET))

        def _parse_idempotency_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        idempotency_key = _parse_idempotency_key(d.pop("idempotency_key", UNSET))

        def _parse_session(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        session = _parse_session(d.pop("session", UNSET))

        run_accepted = cls(
            cancel_requested=cancel_requested,
            created=created,
            created_at=created_at,
            not_before=not_before,
            priority=priority,
            providers=providers,
            run_id=run_id,
            status=status,
            envelope=envelope,
            idempotency_key=idempotency_key,
            session=session,
        )

        run_accepted.additional_properties = d
        return run_accepted

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
