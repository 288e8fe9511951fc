from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="EngineHealth")


@_attrs_define
class EngineHealth:
    """A container engine (`podman`, `docker`) for `--sandbox container`.

    Attributes:
        found (bool): Whether it is on `PATH`.
        answers (bool): Whether the engine answered `<engine> info` in time (its service
            or daemon is reachable). Starting a container is not tried.
        name (str): `podman` or `docker`.
        error (None | str | Unset): Why it was not found, or why `--version` failed.
        path (None | str | Unset): Where.
        version (None | str | Unset): The version its `--version` printed.
        info_error (None | str | Unset): Why it did not answer.
        info_ms (int | None | Unset): How long `info` took, in milliseconds.
    """

    found: bool
    answers: bool
    name: str
    error: None | str | Unset = UNSET
    path: None | str | Unset = UNSET
    version: None | str | Unset = UNSET
    info_error: None | str | Unset = UNSET
    info_ms: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        found = self.found

        answers = self.answers

        name = self.name

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        path: None | str | Unset
        if isinstance(self.path, Unset):
            path = UNSET
        else:
            path = self.path

        version: None | str | Unset
        if isinstance(self.version, Unset):
            version = UNSET
        else:
            version = self.version

        info_error: None | str | Unset
        if isinstance(self.info_error, Unset):
            info_error = UNSET
        else:
            info_error = self.info_error

        info_ms: int | None | Unset
        if isinstance(self.info_ms, Unset):
            info_ms = UNSET
        else:
            info_ms = self.info_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "found": found,
                "answers": answers,
                "name": name,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error
        if path is not UNSET:
            field_dict["path"] = path
        if version is not UNSET:
            field_dict["version"] = version
        if info_error is not UNSET:
            field_dict["info_error"] = info_error
        if info_ms is not UNSET:
            field_dict["info_ms"] = info_ms

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        found = d.pop("found")

        answers = d.pop("answers")

        name = d.pop("name")

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_path(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        path = _parse_path(d.pop("path", UNSET))

        def _parse_version(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        version = _parse_version(d.pop("version", UNSET))

        def _parse_info_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        info_error = _parse_info_error(d.pop("info_error", UNSET))

        def _parse_info_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        info_ms = _parse_info_ms(d.pop("info_ms", UNSET))

        engine_health = cls(
            found=found,
            answers=answers,
            name=name,
            error=error,
            path=path,
            version=version,
            info_error=info_error,
            info_ms=info_ms,
        )

        engine_health.additional_properties = d
        return engine_health

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
