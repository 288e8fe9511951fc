from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.log_level import LogLevel, check_log_level

T = TypeVar("T", bound="LogEvent")


@_attrs_define
class LogEvent:
    """Body of `log`: a diagnostic message from agentgate itself.

    Attributes:
        level (LogLevel): Severity of a `log` event.

            - `error`: Something failed.
            - `warn`: Something looks wrong but the run goes on.
            - `info`: Progress worth knowing.
            - `debug`: Detail for debugging.
        message (str): The message.
    """

    level: LogLevel
    message: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        level: str = self.level

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
        level = check_log_level(d.pop("level"))

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
