from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Caller")


@_attrs_define
class Caller:
    """The token a request came with, once the gate accepted it.

    Attributes:
        name (str): The token's name (`serve` for the server's own token).
        scopes (list[str]): Its scopes (`read`, `read:all`, `submit`, `cancel`, `approve`,
            `admin`).
        max_running (int | None | Unset): The most of its jobs queued or running at once, if limited.
        team (None | str | Unset): Its team, if any.
    """

    name: str
    scopes: list[str]
    max_running: int | None | Unset = UNSET
    team: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        scopes = self.scopes

        max_running: int | None | Unset
        if isinstance(self.max_running, Unset):
            max_running = UNSET
        else:
            max_running = self.max_running

        team: None | str | Unset
        if isinstance(self.team, Unset):
            team = UNSET
        else:
            team = self.team

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "scopes": scopes,
            }
        )
        if max_running is not UNSET:
            field_dict["max_running"] = max_running
        if team is not UNSET:
            field_dict["team"] = team

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        scopes = cast(list[str], d.pop("scopes"))

        def _parse_max_running(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_running = _parse_max_running(d.pop("max_running", UNSET))

        def _parse_team(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        team = _parse_team(d.pop("team", UNSET))

        caller = cls(
            name=name,
            scopes=scopes,
            max_running=max_running,
            team=team,
        )

        caller.additional_properties = d
        return caller

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
