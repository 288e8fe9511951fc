from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.artifact_state import ArtifactState, check_artifact_state

T = TypeVar("T", bound="ArtifactCheck")


@_attrs_define
class ArtifactCheck:
    """One artifact of the tool's `result`, checked by the runner.

    Attributes:
        actual_sha256 (None | str): The SHA-256 the runner computed from the file, if it is a file.
        path (str): The path as the tool declared it.
        resolved (str): The file it names (a relative path resolved against the workspace).
        sha256 (None | str): The declared SHA-256.
        state (ArtifactState): How a declared artifact compared with the file.

            - `verified`: The file's SHA-256 equals the declared one.
            - `mismatch`: The file's SHA-256 differs from the declared one.
            - `missing`: No file or folder at the path.
            - `unchecked`: The path exists; no SHA-256 was declared (or it is a folder), so there
            was nothing to compare.
    """

    actual_sha256: None | str
    path: str
    resolved: str
    sha256: None | str
    state: ArtifactState
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        actual_sha256: None | str
        actual_sha256 = self.actual_sha256

        path = self.path

        resolved = self.resolved

        sha256: None | str
        sha256 = self.sha256

        state: str = self.state

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "actual_sha256": actual_sha256,
                "path": path,
                "resolved": resolved,
                "sha256": sha256,
                "state": state,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_actual_sha256(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        actual_sha256 = _parse_actual_sha256(d.pop("actual_sha256"))

        path = d.pop("path")

        resolved = d.pop("resolved")

        def _parse_sha256(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        sha256 = _parse_sha256(d.pop("sha256"))

        state = check_artifact_state(d.pop("state"))

        artifact_check = cls(
            actual_sha256=actual_sha256,
            path=path,
            resolved=resolved,
            sha256=sha256,
            state=state,
        )

        artifact_check.additional_properties = d
        return artifact_check

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
