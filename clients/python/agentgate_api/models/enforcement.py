from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.enforcement_state import EnforcementState, check_enforcement_state

T = TypeVar("T", bound="Enforcement")


@_attrs_define
class Enforcement:
    """One limit of a tool run.

    Attributes:
        by (None | str): By what: `RLIMIT_CPU`, `Landlock ABI 7`, `network namespace`.
        limit (str): The limit, e.g. `60 s`, `256 MiB`, `no egress`.
        note (None | str): Why it is partial or not enforced.
        state (EnforcementState): Whether a limit was enforced, and how.

            - `enforced`: The kernel (or the runner) enforces the limit as stated.
            - `partial`: Enforced in part (see `note`), e.g. egress ports but not hosts.
            - `not_enforced`: Asked for but not enforced here (see `note` for why).
            - `none`: The manifest asks for no limit of this kind.
    """

    by: None | str
    limit: str
    note: None | str
    state: EnforcementState
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        by: None | str
        by = self.by

        limit = self.limit

        note: None | str
        note = self.note

        state: str = self.state

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "by": by,
                "limit": limit,
                "note": note,
                "state": state,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        by = _parse_by(d.pop("by"))

        limit = d.pop("limit")

        def _parse_note(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        note = _parse_note(d.pop("note"))

        state = check_enforcement_state(d.pop("state"))

        enforcement = cls(
            by=by,
            limit=limit,
            note=note,
            state=state,
        )

        enforcement.additional_properties = d
        return enforcement

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
