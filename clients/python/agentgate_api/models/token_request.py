from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.token_request_scopes_item import (
    TokenRequestScopesItem,
    check_token_request_scopes_item,
)
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.token_budget_body import TokenBudgetBody


T = TypeVar("T", bound="TokenRequest")


@_attrs_define
class TokenRequest:
    """The body of `POST /v1/tokens`.

    Attributes:
        name (str): Its unique name (letters, digits, `.`, `_`, `-`); not `serve`, the server's own token's name.
        scopes (list[TokenRequestScopesItem]): Its scopes: `read`, `read:all`, `submit`, `cancel`, `approve`, `admin`.
        budget (None | TokenBudgetBody | Unset):
        expires (None | str | Unset): When it stops working: a duration (`30d`, `12h`, `90m`) or an RFC
            3339 time.
        max_running (int | None | Unset): The most of its jobs queued or running at once.
        team (None | str | Unset): Its team: then `read` sees only the team's runs.
    """

    name: str
    scopes: list[TokenRequestScopesItem]
    budget: None | TokenBudgetBody | Unset = UNSET
    expires: None | str | Unset = UNSET
    max_running: int | None | Unset = UNSET
    team: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.token_budget_body import TokenBudgetBody

        name = self.name

        scopes = []
        for scopes_item_data in self.scopes:
            scopes_item: str = scopes_item_data
            scopes.append(scopes_item)

        budget: dict[str, Any] | None | Unset
        if isinstance(self.budget, Unset):
            budget = UNSET
        elif isinstance(self.budget, TokenBudgetBody):
            budget = self.budget.to_dict()
        else:
            budget = self.budget

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
        if budget is not UNSET:
            field_dict["budget"] = budget
        if expires is not UNSET:
            field_dict["expires"] = expires
        if max_running is not UNSET:
            field_dict["max_running"] = max_running
        if team is not UNSET:
            field_dict["team"] = team

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.token_budget_body import TokenBudgetBody

        d = dict(src_dict)
        name = d.pop("name")

        scopes = []
        _scopes = d.pop("scopes")
        for scopes_item_data in _scopes:
            scopes_item = check_token_request_scopes_item(scopes_item_data)

            scopes.append(scopes_item)

        def _parse_budget(data: object) -> None | TokenBudgetBody | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                budget_type_0 = TokenBudgetBody.from_dict(data)

                return budget_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TokenBudgetBody | Unset, data)

        budget = _parse_budget(d.pop("budget", UNSET))

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
            budget=budget,
            expires=expires,
            max_running=max_running,
            team=team,
        )

        return token_request
