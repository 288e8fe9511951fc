from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="LogEvent")


@_attrs_define
class LogEvent:
    """Body of `log`: a diagnostic message from agentgate itself.

    Attributes:
        level (Literal['debug'] | Literal['error'] | Literal['info'] | Literal['warn']): Severity of a `log` event.
        message (str): The message.
    """

    level: Literal["debug", "error", "info", "warn"]
    message: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        level: Literal["debug", "error", "info", "warn"]
        level = self.level

        message = self.message

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "level": level,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_level(data: object) -> Literal["debug", "error", "info", "warn"]:
            componentsschemas_log_level_type_0 = cast(Literal["error"], data)
            if componentsschemas_log_level_type_0 != "error":
                raise ValueError(
                    f"/components/schemas/LogLevel_type_0 must match const 'error', got '{componentsschemas_log_level_type_0}'"
                )
            return componentsschemas_log_level_type_0
            componentsschemas_log_level_type_1 = cast(Literal["warn"], data)
            if componentsschemas_log_level_type_1 != "warn":
                raise ValueError(
                    f"/components/schemas/LogLevel_type_1 must match const 'warn', got '{componentsschemas_log_level_type_1}'"
                )
            return componentsschemas_log_level_type_1
            componentsschemas_log_level_type_2 = cast(Literal["info"], data)
            if componentsschemas_log_level_type_2 != "info":
                raise ValueError(
                    f"/components/schemas/LogLevel_type_2 must match const 'info', got '{componentsschemas_log_level_type_2}'"
                )
            return componentsschemas_log_level_type_2
            componentsschemas_log_level_type_3 = cast(Literal["debug"], data)
            if componentsschemas_log_level_type_3 != "debug":
                raise ValueError(
                    f"/components/schemas/LogLevel_type_3 must match const 'debug', got '{componentsschemas_log_level_type_3}'"
                )
            return componentsschemas_log_level_type_3

        level = _parse_level(d.pop("level"))

        message = d.pop("message")

        log_event = cls(
            level=level,
            message=message,
        )

        log_event.additional_properties = d
        return log_event

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
