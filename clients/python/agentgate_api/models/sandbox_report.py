from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.enforcement_state import EnforcementState, check_enforcement_state
from ..models.sandbox_level import SandboxLevel, check_sandbox_level
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
            level (SandboxLevel): How far an agent CLI is confined.

                - `off`: As today: the CLI gets agentgate's environment (less its own
                variables), the user's files and the network.
                - `workspace`: An environment allowlist; writes only to the workspace, the CLI's
                own state folders and a private temporary folder; the user's other
                secrets hidden. The network is not restricted.
                - `strict`: `workspace`, and the network is only the run's model gateway (and
                the `egress_allow` hosts through a CONNECT proxy): no other host, no
                loopback service of the machine.
                - `container`: The CLI runs in a container (`docker` or `podman`) with the
                workspace mounted and the environment passed explicitly.
            network (Enforcement): One limit of a tool run.
            processes (Enforcement): One limit of a tool run.
            state (EnforcementState): Whether a limit was enforced, and how.

                - `enforced`: The kernel (or the runner) enforces the limit as stated.
                - `partial`: Enforced in part (see `note`), e.g. egress ports but not hosts.
                - `not_enforced`: Asked for but not enforced here (see `note` for why).
                - `none`: The manifest asks for no limit of this kind.
            container (Enforcement | None | Unset): The container (`container`): engine, image or name.
            warnings (list[str] | Unset): What the sandbox changed of what it was asked, for the reader.
    """

    environment: Enforcement
    filesystem: Enforcement
    level: SandboxLevel
    network: Enforcement
    processes: Enforcement
    state: EnforcementState
    container: Enforcement | None | Unset = UNSET
    warnings: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.enforcement import Enforcement

        environment = self.environment.to_dict()

        filesystem = self.filesystem.to_dict()

        level: str = self.level

        network = self.network.to_dict()

        processes = self.processes.to_dict()

        state: str = self.state

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

        level = check_sandbox_level(d.pop("level"))

        network = Enforcement.from_dict(d.pop("network"))

        processes = Enforcement.from_dict(d.pop("processes"))

        state = check_enforcement_state(d.pop("state"))

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
