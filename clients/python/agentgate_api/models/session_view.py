from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.rotation_view import RotationView
    from ..models.session_view_labels import SessionViewLabels


T = TypeVar("T", bound="SessionView")


@_attrs_define
class SessionView:
    """One provider's session of a logical session name.

    Attributes:
        created_at (datetime.datetime): When the name was first stored.
        name (str): The logical name (`--session`).
        native_session_id (str): The provider's own session (thread, conversation) id.
        provider (str): The provider the native id belongs to.
        rotations (list[RotationView]): The native sessions the name moved through (`max_context_tokens`),
            oldest first; empty when it never rotated.
        turns (int): Turns run in the session.
        updated_at (datetime.datetime): When the session was last used.
        context_tokens (int | None | Unset): The context length the session's last turn left (its last model
            call's prompt and output), what `max_context_tokens` is checked
            against; `null` when the CLI did not tell it.
        cwd (None | str | Unset): The working directory the session was last used in.
        labels (SessionViewLabels | Unset): The labels of the run that created the session (`--label`); left
            out when it had none.
    """

    created_at: datetime.datetime
    name: str
    native_session_id: str
    provider: str
    rotations: list[RotationView]
    turns: int
    updated_at: datetime.datetime
    context_tokens: int | None | Unset = UNSET
    cwd: None | str | Unset = UNSET
    labels: SessionViewLabels | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        name = self.name

        native_session_id = self.native_session_id

        provider = self.provider

        rotations = []
        for rotations_item_data in self.rotations:
            rotations_item = rotations_item_data.to_dict()
            rotations.append(rotations_item)

        turns = self.turns

        updated_at = self.updated_at.isoformat()

        context_tokens: int | None | Unset
        if isinstance(self.context_tokens, Unset):
            context_tokens = UNSET
        else:
            context_tokens = self.context_tokens

        cwd: None | str | Unset
        if isinstance(self.cwd, Unset):
            cwd = UNSET
        else:
            cwd = self.cwd

        labels: dict[str, Any] | Unset = UNSET
        if not isinstance(self.labels, Unset):
            labels = self.labels.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "name": name,
                "native_session_id": native_session_id,
                "provider": provider,
                "rotations": rotations,
                "turns": turns,
                "updated_at": updated_at,
            }
        )
        if context_tokens is not UNSET:
            field_dict["context_tokens"] = context_tokens
        if cwd is not UNSET:
            field_dict["cwd"] = cwd
        if labels is not UNSET:
            field_dict["labels"] = labels

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.rotation_view import RotationView
        from ..models.session_view_labels import SessionViewLabels

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        name = d.pop("name")

        native_session_id = d.pop("native_session_id")

        provider = d.pop("provider")

        rotations = []
        _rotations = d.pop("rotations")
        for rotations_item_data in _rotations:
            rotations_item = RotationView.from_dict(rotations_item_data)

            rotations.append(rotations_item)

        turns = d.pop("turns")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_context_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        context_tokens = _parse_context_tokens(d.pop("context_tokens", UNSET))

        def _parse_cwd(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        cwd = _parse_cwd(d.pop("cwd", UNSET))

        _labels = d.pop("labels", UNSET)
        labels: SessionViewLabels | Unset
        if isinstance(_labels, Unset):
            labels = UNSET
        else:
            labels = SessionViewLabels.from_dict(_labels)

        session_view = cls(
            created_at=created_at,
            name=name,
            native_session_id=native_session_id,
            provider=provider,
            rotations=rotations,
            turns=turns,
            updated_at=updated_at,
            context_tokens=context_tokens,
            cwd=cwd,
            labels=labels,
        )

        session_view.additional_properties = d
        return session_view

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
