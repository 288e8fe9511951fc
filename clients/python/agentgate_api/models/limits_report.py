from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.enforcement import Enforcement


T = TypeVar("T", bound="LimitsReport")


@_attrs_define
class LimitsReport:
    """Every limit of a tool run, and what enforced it.

    Attributes:
        cpu (Enforcement): One limit of a tool run.
        filesystem (Enforcement): One limit of a tool run.
        memory (Enforcement): One limit of a tool run.
        network (Enforcement): One limit of a tool run.
        output (Enforcement): One limit of a tool run.
        private_files (Enforcement): One limit of a tool run.
        processes (Enforcement): One limit of a tool run.
    """

    cpu: Enforcement
    filesystem: Enforcement
    memory: Enforcement
    network: Enforcement
    output: Enforcement
    private_files: Enforcement
    processes: Enforcement
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cpu = self.cpu.to_dict()

        filesystem = self.filesystem.to_dict()

        memory = self.memory.to_dict()

        network = self.network.to_dict()

        output = self.output.to_dict()

        private_files = self.private_files.to_dict()

        processes = self.processes.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cpu": cpu,
                "filesystem": filesystem,
                "memory": memory,
                "network": network,
                "output": output,
                "private_files": private_files,
                "processes": processes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.enforcement import Enforcement

        d = dict(src_dict)
        cpu = Enforcement.from_dict(d.pop("cpu"))

        filesystem = Enforcement.from_dict(d.pop("filesystem"))

        memory = Enforcement.from_dict(d.pop("memory"))

        network = Enforcement.from_dict(d.pop("network"))

        output = Enforcement.from_dict(d.pop("output"))

        private_files = Enforcement.from_dict(d.pop("private_files"))

        processes = Enforcement.from_dict(d.pop("processes"))

        limits_report = cls(
            cpu=cpu,
            filesystem=filesystem,
            memory=memory,
            network=network,
            output=output,
            private_files=private_files,
            processes=processes,
        )

        limits_report.additional_properties = d
        return limits_report

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
