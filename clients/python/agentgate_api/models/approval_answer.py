from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.approval_answer_decision import (
    ApprovalAnswerDecision,
    check_approval_answer_decision,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="ApprovalAnswer")


@_attrs_define
class ApprovalAnswer:
    """A person's answer.

    Attributes:
        decision (ApprovalAnswerDecision): `allow` or `deny`.
        message (None | str | Unset): Why (given to the agent with a denial).
    """

    decision: ApprovalAnswerDecision
    message: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        decision: str = self.decision

        message: None | str | Unset
        if isinstance(self.message, Unset):
            message = UNSET
        else:
            message = self.message

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "decision": decision,
            }
        )
        if message is not UNSET:
            field_dict["message"] = message

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        decision = check_approval_answer_decision(d.pop("decision"))

        def _parse_message(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        message = _parse_message(d.pop("message", UNSET))

        approval_answer = cls(
            decision=decision,
            message=message,
        )

        return approval_answer
