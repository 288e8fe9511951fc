from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.fallback_from import FallbackFrom, check_fallback_from
from ..types import UNSET, Unset

T = TypeVar("T", bound="FallbackSource")


@_attrs_define
class FallbackSource:
    """The envelope's `fallback`.

    Attributes:
        from_ (FallbackFrom): What the figures were read from.

            - `store`: agentgate's run store: the session's latest recorded run
            (`run_id` is that run's).
            - `session_file`: The CLI's own session file (`path`), for a session agentgate never
            ran; `run_id` is empty.
        path (None | str | Unset): The session file read (`session_file` only).
        skipped_lines (list[str] | Unset): Lines of the session file that were skipped, each with why
            (`line 7: not UTF-8`).
    """

    from_: FallbackFrom
    path: None | str | Unset = UNSET
    skipped_lines: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from_: str = self.from_

        path: None | str | Unset
        if isinstance(self.path, Unset):
            path = UNSET
        else:
            path = self.path

        skipped_lines: list[str] | Unset = UNSET
        if not isinstance(self.skipped_lines, Unset):
            skipped_lines = self.skipped_lines

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "from": from_,
            }
        )
        if path is not UNSET:
            field_dict["path"] = path
        if skipped_lines is not UNSET:
            field_dict["skipped_lines"] = skipped_lines

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        from_ = check_fallback_from(d.pop("from"))

        def _parse_path(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        path = _parse_path(d.pop("path", UNSET))

        skipped_lines = cast(list[str], d.pop("skipped_lines", UNSET))

        fallback_source = cls(
            from_=from_,
            path=path,
            skipped_lines=skipped_lines,
        )

        fallback_source.additional_properties = d
        return fallback_source

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
