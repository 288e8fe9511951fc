from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.host_capability import HostCapability


T = TypeVar("T", bound="KernelSupport")


@_attrs_define
class KernelSupport:
    """The kernel's side of the sandbox, as `agentgate __sandbox --probe`
    found it by trying.

        Attributes:
            network_namespace (HostCapability): One kernel feature: whether this host has it, and why not.
            pid_namespace (HostCapability): One kernel feature: whether this host has it, and why not.
            user_namespace (HostCapability): One kernel feature: whether this host has it, and why not.
            landlock_abi (int | None | Unset): The kernel's Landlock ABI version, if it has Landlock.
            landlock_note (None | str | Unset): Why there is no Landlock, if there is none.
    """

    network_namespace: HostCapability
    pid_namespace: HostCapability
    user_namespace: HostCapability
    landlock_abi: int | None | Unset = UNSET
    landlock_note: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        network_namespace = self.network_namespace.to_dict()

        pid_namespace = self.pid_namespace.to_dict()

        user_namespace = self.user_namespace.to_dict()

        landlock_abi: int | None | Unset
        if isinstance(self.landlock_abi, Unset):
            landlock_abi = UNSET
        else:
            landlock_abi = self.landlock_abi

        landlock_note: None | str | Unset
        if isinstance(self.landlock_note, Unset):
            landlock_note = UNSET
        else:
            landlock_note = self.landlock_note

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "network_namespace": network_namespace,
                "pid_namespace": pid_namespace,
                "user_namespace": user_namespace,
            }
        )
        if landlock_abi is not UNSET:
            field_dict["landlock_abi"] = landlock_abi
        if landlock_note is not UNSET:
            field_dict["landlock_note"] = landlock_note

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.host_capability import HostCapability

        d = dict(src_dict)
        network_namespace = HostCapability.from_dict(d.pop("network_namespace"))

        pid_namespace = HostCapability.from_dict(d.pop("pid_namespace"))

        user_namespace = HostCapability.from_dict(d.pop("user_namespace"))

        def _parse_landlock_abi(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        landlock_abi = _parse_landlock_abi(d.pop("landlock_abi", UNSET))

        def _parse_landlock_note(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        landlock_note = _parse_landlock_note(d.pop("landlock_note", UNSET))

        kernel_support = cls(
            network_namespace=network_namespace,
            pid_namespace=pid_namespace,
            user_namespace=user_namespace,
            landlock_abi=landlock_abi,
            landlock_note=landlock_note,
        )

        kernel_support.additional_properties = d
        return kernel_support

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
