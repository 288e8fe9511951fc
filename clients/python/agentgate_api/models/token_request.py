from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="TokenRequest")


@_attrs_define
class TokenRequest:
    """The body of `POST /v1/tokens`.

    Attributes:
        name (str): Its unique name (letters, digits, `.`, `_`, `-`).
        scopes (list[str]): Its scopes: `read`, `read:all`, `submit`, `cancel`, `approve`, `admin`.
        expires (None | str | Unset): When it stops working: a duration (`30d`, `12h`, `90m`) or an RFC
            3339 time.
        max_running (int | None | Unset): The most of its jobs queued or running at once.
        team (None | str | Unset): Its team: then `read` sees only the team's runs.
    """

    name: str
    scopes: list[str]
    expires: None | str | Unset = UNSET
    max_running: int | None | Unset = UNSET
    team: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        scopes = self.scopes

        expires: None | str | Unset
        if isinstance(self.expires, Unset):
            expires = UNSET
        else:
            expires = self.expires

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

        field_dict.update(
            {
                "name": name,
                "scopes": scopes,
            }
        )
        if expires is not UNSET:
            field_dict["expires"] = expires
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

        def _parse_expires(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        expires = _parse_expires(d.pop("expires", UNSET))

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

        token_request = cls(
            name=name,
            scopes=scopes,
            expires=expires,
            max_running=max_running,
            team=team,
        )

        return token_request
