from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.login_state import LoginState, check_login_state

T = TypeVar("T", bound="Login")


@_attrs_define
class Login:
    """The login state with what it rests on. Never holds a secret's value.

    Attributes:
        checked (list[str]): Every place that was looked at.
        evidence (list[str]): What was found, e.g. "ANTHROPIC_API_KEY is set".
        state (LoginState): Where a provider's login comes from, as far as files and variables tell.
    """

    checked: list[str]
    evidence: list[str]
    state: LoginState
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        checked = self.checked

        evidence = self.evidence

        state: str = self.state

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "checked": checked,
                "evidence": evidence,
                "state": state,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        checked = cast(list[str], d.pop("checked"))

        evidence = cast(list[str], d.pop("evidence"))

        state = check_login_state(d.pop("state"))

        login = cls(
            checked=checked,
            evidence=evidence,
            state=state,
        )

        login.additional_properties = d
        return login

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
