from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="WorkerView")


@_attrs_define
class WorkerView:
    """One worker, as of its last heartbeat.

    Attributes:
        heartbeat_every_s (float): Seconds between its heartbeats.
        host (str): The host it runs on.
        id (str): Its id (random, new at each start).
        kind (str): `worker` or `serve`.
        last_heartbeat (datetime.datetime): Its last heartbeat (RFC 3339).
        pid (int): Its process id there.
        providers (list[str]): The providers whose jobs it claims; empty: every provider.
        running (list[str]): The ids of the jobs (runs) it runs now.
        started_at (datetime.datetime): When it started (RFC 3339).
        state (str): `running`, `draining` (stopping: it claims nothing more), or `lost`
            (no heartbeat for three periods: dead, or cut off from the store;
            its jobs are taken back when their leases expire).
        concurrency (int | None | Unset): The most jobs it runs at once (`--concurrency`); null: only the
            config's `queue:` limits.
    """

    heartbeat_every_s: float
    host: str
    id: str
    kind: str
    last_heartbeat: datetime.datetime
    pid: int
    providers: list[str]
    running: list[str]
    started_at: datetime.datetime
    state: str
    concurrency: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        heartbeat_every_s = self.heartbeat_every_s

        host = self.host

        id = self.id

        kind = self.kind

        last_heartbeat = self.last_heartbeat.isoformat()

        pid = self.pid

        providers = self.providers

        running = self.running

        started_at = self.started_at.isoformat()

        state = self.state

        concurrency: int | None | Unset
        if isinstance(self.concurrency, Unset):
            concurrency = UNSET
        else:
            concurrency = self.concurrency

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "heartbeat_every_s": heartbeat_every_s,
                "host": host,
                "id": id,
                "kind": kind,
                "last_heartbeat": last_heartbeat,
                "pid": pid,
                "providers": providers,
                "running": running,
                "started_at": started_at,
                "state": state,
            }
        )
        if concurrency is not UNSET:
            field_dict["concurrency"] = concurrency

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        heartbeat_every_s = d.pop("heartbeat_every_s")

        host = d.pop("host")

        id = d.pop("id")

        kind = d.pop("kind")

        last_heartbeat = datetime.datetime.fromisoformat(d.pop("last_heartbeat"))

        pid = d.pop("pid")

        providers = cast(list[str], d.pop("providers"))

        running = cast(list[str], d.pop("running"))

        started_at = datetime.datetime.fromisoformat(d.pop("started_at"))

        state = d.pop("state")

        def _parse_concurrency(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        concurrency = _parse_concurrency(d.pop("concurrency", UNSET))

        worker_view = cls(
            heartbeat_every_s=heartbeat_every_s,
            host=host,
            id=id,
            kind=kind,
            last_heartbeat=last_heartbeat,
            pid=pid,
            providers=providers,
            running=running,
            started_at=started_at,
            state=state,
            concurrency=concurrency,
        )

        worker_view.additional_properties = d
        return worker_view

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
