from __future__ import annotations

from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.enforcement import Enforcement


T = TypeVar("T", bound="SandboxReport")


@_attrs_define
class SandboxReport:
    """The envelope's `sandbox`: the level a run's CLI ran under and what
    enforced each part of it (left out when the level is `off`). For a run
    with several attempts, the last attempt's.

        Attributes:
            environment (Enforcement): One limit of a tool run.
            filesystem (Enforcement): One limit of a tool run.
            level (Literal['container'] | Literal['off'] | Literal['strict'] | Literal['workspace']): How far an agent CLI
                is confined.
            network (Enforcement): One limit of a tool run.
            processes (Enforcement): One limit of a tool run.
            state (Literal['enforced'] | Literal['none'] | Literal['not_enforced'] | Literal['partial']): Whether a limit
                was enforced, and how.
            container (Enforcement | None | Unset): The container (`container`): engine, image or name.
            warnings (list[str] | Unset): What the sandbox changed of what it was asked, for the reader.
    """

    environment: Enforcement
    filesystem: Enforcement
    level: Literal["container", "off", "strict", "workspace"]
    network: Enforcement
    processes: Enforcement
    state: Literal["enforced", "none", "not_enforced", "partial"]
    container: Enforcement | None | Unset = UNSET
    warnings: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.enforcement import Enforcement

        environment = self.environment.to_dict()

        filesystem = self.filesystem.to_dict()

        level: Literal["container", "off", "strict", "workspace"]
        level = self.level

        network = self.network.to_dict()

        processes = self.processes.to_dict()

        state: Literal["enforced", "none", "not_enforced", "partial"]
        state = self.state

        container: dict[str, Any] | None | Unset
        if isinstance(self.container, Unset):
            container = UNSET
        elif isinstance(self.container, Enforcement):
            container = self.container.to_dict()
        else:
            container = self.container

        warnings: list[str] | Unset = UNSET
        if not isinstance(self.warnings, Unset):
            warnings = self.warnings

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "environment": environment,
                "filesystem": filesystem,
                "level": level,
                "network": network,
                "processes": processes,
                "state": state,
            }
        )
        if container is not UNSET:
            field_dict["container"] = container
        if warnings is not UNSET:
            field_dict["warnings"] = warnings

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.enforcement import Enforcement

        d = dict(src_dict)
        environment = Enforcement.from_dict(d.pop("environment"))

        filesystem = Enforcement.from_dict(d.pop("filesystem"))

        def _parse_level(
            data: object,
        ) -> Literal["container", "off", "strict", "workspace"]:
            componentsschemas_sandbox_level_type_0 = cast(Literal["off"], data)
            if componentsschemas_sandbox_level_type_0 != "off":
                raise ValueError(
                    f"/components/schemas/SandboxLevel_type_0 must match const 'off', got '{componentsschemas_sandbox_level_type_0}'"
                )
            return componentsschemas_sandbox_level_type_0
            componentsschemas_sandbox_level_type_1 = cast(Literal["workspace"], data)
            if componentsschemas_sandbox_level_type_1 != "workspace":
                raise ValueError(
                    f"/components/schemas/SandboxLevel_type_1 must match const 'workspace', got '{componentsschemas_sandbox_level_type_1}'"
                )
            return componentsschemas_sandbox_level_type_1
            componentsschemas_sandbox_level_type_2 = cast(Literal["strict"], data)
            if componentsschemas_sandbox_level_type_2 != "strict":
                raise ValueError(
                    f"/components/schemas/SandboxLevel_type_2 must match const 'strict', got '{componentsschemas_sandbox_level_type_2}'"
                )
            return componentsschemas_sandbox_level_type_2
            componentsschemas_sandbox_level_type_3 = cast(Literal["container"], data)
            if componentsschemas_sandbox_level_type_3 != "container":
                raise ValueError(
                    f"/components/schemas/SandboxLevel_type_3 must match const 'container', got '{componentsschemas_sandbox_level_type_3}'"
                )
            return componentsschemas_sandbox_level_type_3

        level = _parse_level(d.pop("level"))

        network = Enforcement.from_dict(d.pop("network"))

        processes = Enforcement.from_dict(d.pop("processes"))

        def _parse_state(
            data: object,
        ) -> Literal["enforced", "none", "not_enforced", "partial"]:
            componentsschemas_enforcement_state_type_0 = cast(Literal["enforced"], data)
            if componentsschemas_enforcement_state_type_0 != "enforced":
                raise ValueError(
                    f"/components/schemas/EnforcementState_type_0 must match const 'enforced', got '{componentsschemas_enforcement_state_type_0}'"
                )
            return componentsschemas_enforcement_state_type_0
            componentsschemas_enforcement_state_type_1 = cast(Literal["partial"], data)
            if componentsschemas_enforcement_state_type_1 != "partial":
                raise ValueError(
                    f"/components/schemas/EnforcementState_type_1 must match const 'partial', got '{componentsschemas_enforcement_state_type_1}'"
                )
            return componentsschemas_enforcement_state_type_1
            componentsschemas_enforcement_state_type_2 = cast(
                Literal["not_enforced"], data
            )
            if componentsschemas_enforcement_state_type_2 != "not_enforced":
                raise ValueError(
                    f"/components/schemas/EnforcementState_type_2 must match const 'not_enforced', got '{componentsschemas_enforcement_state_type_2}'"
                )
            return componentsschemas_enforcement_state_type_2
            componentsschemas_enforcement_state_type_3 = cast(Literal["none"], data)
            if componentsschemas_enforcement_state_type_3 != "none":
                raise ValueError(
                    f"/components/schemas/EnforcementState_type_3 must match const 'none', got '{componentsschemas_enforcement_state_type_3}'"
                )
            return componentsschemas_enforcement_state_type_3

        state = _parse_state(d.pop("state"))

        def _parse_container(data: object) -> Enforcement | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                container_type_0 = Enforcement.from_dict(data)

                return container_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Enforcement | None | Unset, data)

        container = _parse_container(d.pop("container", UNSET))

        warnings = cast(list[str], d.pop("warnings", UNSET))

        sandbox_report = cls(
            environment=environment,
            filesystem=filesystem,
            level=level,
            network=network,
            processes=processes,
            state=state,
            container=container,
            warnings=warnings,
        )

        sandbox_report.additional_properties = d
        return sandbox_report

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
