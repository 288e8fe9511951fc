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

from ..types import UNSET, Unset

T = TypeVar("T", bound="WarmReport")


@_attrs_define
class WarmReport:
    """The envelope's `warm`: the process that served a warm turn.

    Attributes:
        process (Literal['replaced'] | Literal['reused'] | Literal['started']): How the turn got its process.
        turn (int): Which turn of this process it was (1 for a new one).
        pgid (int | None | Unset): The process group's id (the pid of its leader, agentgate's keeper).
        replaced_because (None | str | Unset): Why the earlier process was replaced.
    """

    process: Literal["replaced", "reused", "started"]
    turn: int
    pgid: int | None | Unset = UNSET
    replaced_because: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        process: Literal["replaced", "reused", "started"]
        process = self.process

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

        def _parse_process(data: object) -> Literal["replaced", "reused", "started"]:
            componentsschemas_warm_process_state_type_0 = cast(Literal["started"], data)
            if componentsschemas_warm_process_state_type_0 != "started":
                raise ValueError(
                    f"/components/schemas/WarmProcessState_type_0 must match const 'started', got '{componentsschemas_warm_process_state_type_0}'"
                )
            return componentsschemas_warm_process_state_type_0
            componentsschemas_warm_process_state_type_1 = cast(Literal["reused"], data)
            if componentsschemas_warm_process_state_type_1 != "reused":
                raise ValueError(
                    f"/components/schemas/WarmProcessState_type_1 must match const 'reused', got '{componentsschemas_warm_process_state_type_1}'"
                )
            return componentsschemas_warm_process_state_type_1
            componentsschemas_warm_process_state_type_2 = cast(
                Literal["replaced"], data
            )
            if componentsschemas_warm_process_state_type_2 != "replaced":
                raise ValueError(
                    f"/components/schemas/WarmProcessState_type_2 must match const 'replaced', got '{componentsschemas_warm_process_state_type_2}'"
                )
            return componentsschemas_warm_process_state_type_2

        process = _parse_process(d.pop("process"))

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
