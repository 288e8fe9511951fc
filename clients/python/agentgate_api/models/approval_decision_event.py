from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.decided_by import DecidedBy, check_decided_by
from ..types import UNSET, Unset

T = TypeVar("T", bound="ApprovalDecisionEvent")


@_attrs_define
class ApprovalDecisionEvent:
    """Body of `approval_decision`: how a request was answered.

    Attributes:
        by (DecidedBy): Who or what decided a permission request.

            - `policy`: A rule of the policy, or its default.
            - `human`: A human, through the server's API or the dashboard.
            - `timeout`: Nobody answered an `ask` in time: denied.
            - `repeat`: The same call was denied before in this turn and asked again: denied
            without asking, and the turn stopped (an ask never loops).
            - `cancelled`: The run was cancelled while the request waited: denied.
        decision (str): `allow` or `deny`, as sent to the CLI.
        request_id (str): The request answered.
        message (None | str | Unset): What the agent is told with a denial.
        rule (None | str | Unset): The rule that decided (`approvals.rules[2]`, or `default`), when the
            policy did or sent the request to a human.
    """

    by: DecidedBy
    decision: str
    request_id: str
    message: None | str | Unset = UNSET
    rule: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        by: str = self.by

        decision = self.decision

        request_id = self.request_id

        message: None | str | Unset
        if isinstance(self.message, Unset):
            message = UNSET
        else:
            message = self.message

        rule: None | str | Unset
        if isinstance(self.rule, Unset):
            rule = UNSET
        else:
            rule = self.rule

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "by": by,
                "decision": decision,
                "request_id": request_id,
            }
        )
        if message is not UNSET:
            field_dict["message"] = message
        if rule is not UNSET:
            field_dict["rule"] = rule

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        by = check_decided_by(d.pop("by"))

        decision = d.pop("decision")

        request_id = d.pop("request_id")

        def _parse_message(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        message = _parse_message(d.pop("message", UNSET))

        def _parse_rule(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        rule = _parse_rule(d.pop("rule", UNSET))

        approval_decision_event = cls(
            by=by,
            decision=decision,
            request_id=request_id,
            message=message,
            rule=rule,
        )

        approval_decision_event.additional_properties = d
        return approval_decision_event

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
