from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="RotationView")


@_attrs_define
class RotationView:
    """One rotation of a session: a new native session started under the same
    name because the last turn's context passed `max_context_tokens`.

        Attributes:
            handoff (str): How the new session was seeded: `none`, `summary` or `prompt`.
            old_native_id (str): The native session left behind.
            reason (str): Why, in words.
            rotated_at (datetime.datetime): When the new native session was stored.
            context_tokens (int | None | Unset): The old session's last context length.
            max_context_tokens (int | None | Unset): The limit it passed.
            new_native_id (None | str | Unset): The native session started in its place.
            run_id (None | str | Unset): The run whose turn rotated.
    """

    handoff: str
    old_native_id: str
    reason: str
    rotated_at: datetime.datetime
    context_tokens: int | None | Unset = UNSET
    max_context_tokens: int | None | Unset = UNSET
    new_native_id: None | str | Unset = UNSET
    run_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        handoff = self.handoff

        old_native_id = self.old_native_id

        reason = self.reason

        rotated_at = self.rotated_at.isoformat()

        context_tokens: int | None | Unset
        if isinstance(self.context_tokens, Unset):
            context_tokens = UNSET
        else:
            context_tokens = self.context_tokens

        max_context_tokens: int | None | Unset
        if isinstance(self.max_context_tokens, Unset):
            max_context_tokens = UNSET
        else:
            max_context_tokens = self.max_context_tokens

        new_native_id: None | str | Unset
        if isinstance(self.new_native_id, Unset):
            new_native_id = UNSET
        else:
            new_native_id = self.new_native_id

        run_id: None | str | Unset
        if isinstance(self.run_id, Unset):
            run_id = UNSET
        else:
            run_id = self.run_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "handoff": handoff,
                "old_native_id": old_native_id,
                "reason": reason,
                "rotated_at": rotated_at,
            }
        )
        if context_tokens is not UNSET:
            field_dict["context_tokens"] = context_tokens
        if max_context_tokens is not UNSET:
            field_dict["max_context_tokens"] = max_context_tokens
        if new_native_id is not UNSET:
            field_dict["new_native_id"] = new_native_id
        if run_id is not UNSET:
            field_dict["run_id"] = run_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        handoff = d.pop("handoff")

        old_native_id = d.pop("old_native_id")

        reason = d.pop("reason")

        rotated_at = datetime.datetime.fromisoformat(d.pop("rotated_at"))

        def _parse_context_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        context_tokens = _parse_context_tokens(d.pop("context_tokens", UNSET))

        def _parse_max_context_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_context_tokens = _parse_max_context_tokens(
            d.pop("max_context_tokens", UNSET)
        )

        def _parse_new_native_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        new_native_id = _parse_new_native_id(d.pop("new_native_id", UNSET))

        def _parse_run_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        run_id = _parse_run_id(d.pop("run_id", UNSET))

        rotation_view = cls(
            handoff=handoff,
            old_native_id=old_native_id,
            reason=reason,
            rotated_at=rotated_at,
            context_tokens=context_tokens,
            max_context_tokens=max_context_tokens,
            new_native_id=new_native_id,
            run_id=run_id,
        )

        rotation_view.additional_properties = d
        return rotation_view

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
