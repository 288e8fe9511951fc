from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SessionRotated")


@_attrs_define
class SessionRotated:
    """The envelope's `session_rotated`: the native session this turn left
    behind, and why.

        Attributes:
            context_tokens (int): The old session's last turn's context length.
            handoff (str): How the new session was seeded: `none`, `summary` (the old session
                was asked for a summary, one extra turn) or `prompt` (the caller's
                text).
            max_context_tokens (int): The limit it passed.
            old_session_id (str): The native session id left behind (the envelope's `session_id` is
                the new one).
            reason (str): Why, in words: `context 2400 tokens > max_context_tokens 1000`.
    """

    context_tokens: int
    handoff: str
    max_context_tokens: int
    old_session_id: str
    reason: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        context_tokens = self.context_tokens

        handoff = self.handoff

        max_context_tokens = self.max_context_tokens

        old_session_id = self.old_session_id

        reason = self.reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "context_tokens": context_tokens,
                "handoff": handoff,
                "max_context_tokens": max_context_tokens,
                "old_session_id": old_session_id,
                "reason": reason,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        context_tokens = d.pop("context_tokens")

        handoff = d.pop("handoff")

        max_context_tokens = d.pop("max_context_tokens")

        old_session_id = d.pop("old_session_id")

        reason = d.pop("reason")

        session_rotated = cls(
            context_tokens=context_tokens,
            handoff=handoff,
            max_context_tokens=max_context_tokens,
            old_session_id=old_session_id,
            reason=reason,
        )

        session_rotated.additional_properties = d
        return session_rotated

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
