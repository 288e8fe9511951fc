from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.login import Login


T = TypeVar("T", bound="ProviderHealth")


@_attrs_define
class ProviderHealth:
    """One provider's health.

    Attributes:
        adapter_kind (str): `builtin` or `config`.
        installed (bool): Whether its executable was found.
        login (Login): The login state with what it rests on. Never holds a secret's value.
        name (str): The provider's name.
        sessions (bool): Whether the adapter can resume sessions.
        usable (bool): Installed and its version probe succeeded.
        latency_ms (int | None | Unset): How long the version probe took, in milliseconds.
        not_found (None | str | Unset): Why it was not found.
        path (None | str | Unset): The executable, when found.
        probe_error (None | str | Unset): Why the version probe failed.
        version (None | str | Unset): The version number `--version` printed.
        version_line (None | str | Unset): The line of `--version` output the number was read from.
    """

    adapter_kind: str
    installed: bool
    login: Login
    name: str
    sessions: bool
    usable: bool
    latency_ms: int | None | Unset = UNSET
    not_found: None | str | Unset = UNSET
    path: None | str | Unset = UNSET
    probe_error: None | str | Unset = UNSET
    version: None | str | Unset = UNSET
    version_line: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        adapter_kind = self.adapter_kind

        installed = self.installed

        login = self.login.to_dict()

        name = self.name

        sessions = self.sessions

        usable = self.usable

        latency_ms: int | None | Unset
        if isinstance(self.latency_ms, Unset):
            latency_ms = UNSET
        else:
            latency_ms = self.latency_ms

        not_found: None | str | Unset
        if isinstance(self.not_found, Unset):
            not_found = UNSET
        else:
            not_found = self.not_found

        path: None | str | Unset
        if isinstance(self.path, Unset):
            path = UNSET
        else:
            path = self.path

        probe_error: None | str | Unset
        if isinstance(self.probe_error, Unset):
            probe_error = UNSET
        else:
            probe_error = self.probe_error

        version: None | str | Unset
        if isinstance(self.version, Unset):
            version = UNSET
        else:
            version = self.version

        version_line: None | str | Unset
        if isinstance(self.version_line, Unset):
            version_line = UNSET
        else:
            version_line = self.version_line

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "adapter_kind": adapter_kind,
                "installed": installed,
                "login": login,
                "name": name,
                "sessions": sessions,
                "usable": usable,
            }
        )
        if latency_ms is not UNSET:
            field_dict["latency_ms"] = latency_ms
        if not_found is not UNSET:
            field_dict["not_found"] = not_found
        if path is not UNSET:
            field_dict["path"] = path
        if probe_error is not UNSET:
            field_dict["probe_error"] = probe_error
        if version is not UNSET:
            field_dict["version"] = version
        if version_line is not UNSET:
            field_dict["version_line"] = version_line

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.login import Login

        d = dict(src_dict)
        adapter_kind = d.pop("adapter_kind")

        installed = d.pop("installed")

        login = Login.from_dict(d.pop("login"))

        name = d.pop("name")

        sessions = d.pop("sessions")

        usable = d.pop("usable")

        def _parse_latency_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        latency_ms = _parse_latency_ms(d.pop("latency_ms", UNSET))

        def _parse_not_found(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        not_found = _parse_not_found(d.pop("not_found", UNSET))

        def _parse_path(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        path = _parse_path(d.pop("path", UNSET))

        def _parse_probe_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        probe_error = _parse_probe_error(d.pop("probe_error", UNSET))

        def _parse_version(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        version = _parse_version(d.pop("version", UNSET))

        def _parse_version_line(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        version_line = _parse_version_line(d.pop("version_line", UNSET))

        provider_health = cls(
            adapter_kind=adapter_kind,
            installed=installed,
            login=login,
            name=name,
            sessions=sessions,
            usable=usable,
            latency_ms=latency_ms,
            not_found=not_found,
            path=path,
            probe_error=probe_error,
            version=version,
            version_line=version_line,
        )

        provider_health.additional_properties = d
        return provider_health

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
