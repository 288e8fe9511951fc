from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.warm_process_state import WarmProcessState, check_warm_process_state
from ..types import UNSET, Unset

T = TypeVar("T", bound="WarmReport")


@_attrs_define
class WarmReport:
    """The envelope's `warm`: the process that served a warm turn.

    Attributes:
        process (WarmProcessState): How the turn got its process.

            - `started`: The session had no warm process: one was started (resuming the
            session's native id when the store knew one).
            - `reused`: The session's warm process, alive from an earlier turn, served it.
            - `replaced`: The session's warm process had died, gone idle past its time or
            been started for other settings: a new one resumed its native
            session (`replaced_because` says why).
        turn (int): Which turn of this process it was (1 for a new one).
        pgid (int | None | Unset): The process group's id (the pid of its leader, agentgate's keeper).
        replaced_because (None | str | Unset): Why the earlier process was replaced.
    """

    process: WarmProcessState
    turn: int
    pgid: int | None | Unset = UNSET
    replaced_because: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        process: str = self.process

        turn = self.turn

        pgid: int | None | Unset
        if isinstance(self.pgid, Unset):
            pgid = UNSET
        else:
            pgid = self.pgid

        replaced_because: None | str | Unset
        if isinstance(self.replaced_because, Unset):
            replaced_because = UNSET
        else:
            replaced_because = self.replaced_because

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "process": process,
                "turn": turn,
            }
        )
        if pgid is not UNSET:
            field_dict["pgid"] = pgid
        if replaced_because is not UNSET:
            field_dict["replaced_because"] = replaced_because

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        process = check_warm_process_state(d.pop("process"))

        turn = d.pop("turn")

        def _parse_pgid(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        pgid = _parse_pgid(d.pop("pgid", UNSET))

        def _parse_replaced_because(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        replaced_because = _parse_replaced_because(d.pop("replaced_because", UNSET))

        warm_report = cls(
            process=process,
            turn=turn,
            pgid=pgid,
            replaced_because=replaced_because,
        )

        warm_report.additional_properties = d
        return warm_report

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
