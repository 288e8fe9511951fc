from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.engine_health import EngineHealth
    from ..models.kernel_support import KernelSupport
    from ..models.level_support import LevelSupport
    from ..models.program_health import ProgramHealth


T = TypeVar("T", bound="SandboxHealth")


@_attrs_define
class SandboxHealth:
    """What `agentgate health` reports of the sandbox.

    Attributes:
        bubblewrap (ProgramHealth): A program found (or not) on `PATH`, and its version.
        engines (list[EngineHealth]): The container engines, in the order `container` picks them when
            the config names none.
        kernel (KernelSupport): The kernel's side of the sandbox, as `agentgate __sandbox --probe`
            found it by trying.
        levels (list[LevelSupport]): Per level (`workspace`, `strict`, `container`), what a run here
            would get.
        os (str): The operating system (`linux`, `macos`).
    """

    bubblewrap: ProgramHealth
    engines: list[EngineHealth]
    kernel: KernelSupport
    levels: list[LevelSupport]
    os: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bubblewrap = self.bubblewrap.to_dict()

        engines = []
        for engines_item_data in self.engines:
            engines_item = engines_item_data.to_dict()
            engines.append(engines_item)

        kernel = self.kernel.to_dict()

        levels = []
        for levels_item_data in self.levels:
            levels_item = levels_item_data.to_dict()
            levels.append(levels_item)

        os = self.os

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bubblewrap": bubblewrap,
                "engines": engines,
                "kernel": kernel,
                "levels": levels,
                "os": os,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.engine_health import EngineHealth
        from ..models.kernel_support import KernelSupport
        from ..models.level_support import LevelSupport
        from ..models.program_health import ProgramHealth

        d = dict(src_dict)
        bubblewrap = ProgramHealth.from_dict(d.pop("bubblewrap"))

        engines = []
        _engines = d.pop("engines")
        for engines_item_data in _engines:
            engines_item = EngineHealth.from_dict(engines_item_data)

            engines.append(engines_item)

        kernel = KernelSupport.from_dict(d.pop("kernel"))

        levels = []
        _levels = d.pop("levels")
        for levels_item_data in _levels:
            levels_item = LevelSupport.from_dict(levels_item_data)

            levels.append(levels_item)

        os = d.pop("os")

        sandbox_health = cls(
            bubblewrap=bubblewrap,
            engines=engines,
            kernel=kernel,
            levels=levels,
            os=os,
        )

        sandbox_health.additional_properties = d
        return sandbox_health

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
