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
    from ..models.run_view_request import RunViewRequest
    from ..models.submitted_by import SubmittedBy


T = TypeVar("T", bound="RunView")


@_attrs_define
class RunView:
    """One run: `GET /v1/runs/{id}`, and each item of `GET /v1/runs`.

    Attributes:
        attempts (int): How many times it was started (a start that waited for a quota is
            not counted).
        cancel_requested (bool): A cancel was asked while it ran: its CLI is stopped and it ends
            `cancelled`, unless the CLI had already ended; then it ends as its
            run did (`succeeded`, or `failed` without another try).
        created_at (datetime.datetime): When it was submitted.
        kind (str): What it runs: `run` (`POST /v1/runs`) or `workflow` (`POST
            /v1/workflows`; its envelope's `workflow` holds the steps).
        not_before (datetime.datetime): Not started before this time.
        priority (int): Higher is claimed first.
        providers (list[str]): The providers the request names, in failover order.
        request (RunViewRequest): The run request, as submitted, with secrets hidden: the values of
            `env` variables whose names say they hold a secret and of secret
            flags in `extra_args` read `[redacted:NAME]`, and every other `env`
            value `[sealed]` (the queue keeps them encrypted).
        run_id (str): The run's id (its events are under this id too).
        status (RunState): Where a run is. A queued run waits to be claimed (see `not_before` and
            `waiting_for`); the last four are final.
        ended_at (datetime.datetime | None | Unset): When it ended; null until then.
        envelope (Envelope | None | Unset):
        error (None | str | Unset): The error it ended with (or the last attempt's, while it waits for a
            retry).
        idempotency_key (None | str | Unset): The caller's idempotency key, if any.
        session (None | str | Unset): The logical session it continues, if any.
        submitted_by (None | SubmittedBy | Unset):
        waiting_for (None | str | Unset): Why a queued run waits, e.g. `quota`; null otherwise.
    """

    attempts: int
    cancel_requested: bool
    created_at: datetime.datetime
    kind: str
    not_before: datetime.datetime
    priority: int
    providers: list[str]
    request: RunViewRequest
    run_id: str
    status: RunState
    ended_at: datetime.datetime | None | Unset = UNSET
    envelope: Envelope | None | Unset = UNSET
    error: None | str | Unset = UNSET
    idempotency_key: None | str | Unset = UNSET
    session: None | str | Unset = UNSET
    submitted_by: None | SubmittedBy | Unset = UNSET
    waiting_for: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.envelope import Envelope
        from ..models.submitted_by import SubmittedBy

        attempts = self.attempts

        cancel_requested = self.cancel_requested

        created_at = self.created_at.isoformat()

        kind = self.kind

        not_before = self.not_before.isoformat()

        priority = self.priority

        providers = self.providers

        request = self.request.to_dict()

        run_id = self.run_id

        status: str = self.status

        ended_at: None | str | Unset
        if isinstance(self.ended_at, Unset):
            ended_at = UNSET
        elif isinstance(self.ended_at, datetime.datetime):
            ended_at = self.ended_at.isoformat()
        else:
            ended_at = self.ended_at

        envelope: dict[str, Any] | None | Unset
        if isinstance(self.envelope, Unset):
            envelope = UNSET
        elif isinstance(self.envelope, Envelope):
            envelope = self.envelope.to_dict()
        else:
            envelope = self.envelope

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

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

        submitted_by: dict[str, Any] | None | Unset
        if isinstance(self.submitted_by, Unset):
            submitted_by = UNSET
        elif isinstance(self.submitted_by, SubmittedBy):
            submitted_by = self.submitted_by.to_dict()
        else:
            submitted_by = self.submitted_by

        waiting_for: None | str | Unset
        if isinstance(self.waiting_for, Unset):
            waiting_for = UNSET
        else:
            waiting_for = self.waiting_for

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "cancel_requested": cancel_requested,
                "created_at": created_at,
                "kind": kind,
                "not_before": not_before,
                "priority": priority,
                "providers": providers,
                "request": request,
                "run_id": run_id,
                "status": status,
            }
        )
        if ended_at is not UNSET:
            field_dict["ended_at"] = ended_at
        if envelope is not UNSET:
            field_dict["envelope"] = envelope
        if error is not UNSET:
            field_dict["error"] = error
        if idempotency_key is not UNSET:
            field_dict["idempotency_key"] = idempotency_key
        if session is not UNSET:
            field_dict["session"] = session
        if submitted_by is not UNSET:
            field_dict["submitted_by"] = submitted_by
        if waiting_for is not UNSET:
            field_dict["waiting_for"] = waiting_for

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.envelope import Envelope
        from ..models.run_view_request import RunViewRequest
        from ..models.submitted_by import SubmittedBy

        d = dict(src_dict)
        attempts = d.pop("attempts")

        cancel_requested = d.pop("cancel_requested")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        kind = d.pop("kind")

        not_before = datetime.datetime.fromisoformat(d.pop("not_before"))

        priority = d.pop("priority")

        providers = cast(list[str], d.pop("providers"))

        request = RunViewRequest.from_dict(d.pop("request"))

        run_id = d.pop("run_id")

        status = check_run_state(d.pop("status"))

        def _parse_ended_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                ended_at_type_0 = datetime.datetime.fromisoformat(data)

                return ended_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        ended_at = _parse_ended_at(d.pop("ended_at", UNSET))

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

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

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

        def _parse_submitted_by(data: object) -> None | SubmittedBy | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                submitted_by_type_0 = SubmittedBy.from_dict(data)

                return submitted_by_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SubmittedBy | Unset, data)

        submitted_by = _parse_submitted_by(d.pop("submitted_by", UNSET))

        def _parse_waiting_for(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        waiting_for = _parse_waiting_for(d.pop("waiting_for", UNSET))

        run_view = cls(
            attempts=attempts,
            cancel_requested=cancel_requested,
            created_at=created_at,
            kind=kind,
            not_before=not_before,
            priority=priority,
            providers=providers,
            request=request,
            run_id=run_id,
            status=status,
            ended_at=ended_at,
            envelope=envelope,
            error=error,
            idempotency_key=idempotency_key,
            session=session,
            submitted_by=submitted_by,
            waiting_for=waiting_for,
        )

        run_view.additional_properties = d
        return run_view

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
