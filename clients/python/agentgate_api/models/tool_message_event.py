from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.action_required_message import ActionRequiredMessage
    from ..models.cancelled_message import CancelledMessage
    from ..models.error_message import ErrorMessage
    from ..models.heartbeat_message import HeartbeatMessage
    from ..models.log_message import LogMessage
    from ..models.progress_message import ProgressMessage
    from ..models.result_message import ResultMessage
    from ..models.start_message import StartMessage
    from ..models.task_message import TaskMessage


T = TypeVar("T", bound="ToolMessageEvent")


@_attrs_define
class ToolMessageEvent:
    """Body of `tool_message`: one message of a tool run's tool, as it printed
    it (see [`ToolMessage`]). Its own `v`, `ts` and `run_id` are kept inside
    `message`; the event's header is the runner's.

        Attributes:
            message (ActionRequiredMessage | CancelledMessage | ErrorMessage | HeartbeatMessage | LogMessage |
                ProgressMessage | ResultMessage | StartMessage | TaskMessage): One message of the tool protocol: the common
                header and a typed body,
                flat on the wire: `{"v":1,"type":"progress","ts":"…","run_id":"r-1",
                "step":"scan","pct":37.5,"msg":"shard 3/8"}`.
    """

    message: (
        ActionRequiredMessage
        | CancelledMessage
        | ErrorMessage
        | HeartbeatMessage
        | LogMessage
        | ProgressMessage
        | ResultMessage
        | StartMessage
        | TaskMessage
    )
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.action_required_message import ActionRequiredMessage
        from ..models.cancelled_message import CancelledMessage
        from ..models.error_message import ErrorMessage
        from ..models.heartbeat_message import HeartbeatMessage
        from ..models.log_message import LogMessage
        from ..models.progress_message import ProgressMessage
        from ..models.result_message import ResultMessage
        from ..models.start_message import StartMessage

        message: dict[str, Any]
        if (
            isinstance(self.message, StartMessage)
            or isinstance(self.message, ProgressMessage)
            or isinstance(self.message, HeartbeatMessage)
            or isinstance(self.message, ActionRequiredMessage)
            or isinstance(self.message, ResultMessage)
            or isinstance(self.message, ErrorMessage)
            or isinstance(self.message, CancelledMessage)
            or isinstance(self.message, LogMessage)
        ):
            message = self.message.to_dict()
        else:
            message = self.message.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.action_required_message import ActionRequiredMessage
        from ..models.cancelled_message import CancelledMessage
        from ..models.error_message import ErrorMessage
        from ..models.heartbeat_message import HeartbeatMessage
        from ..models.log_message import LogMessage
        from ..models.progress_message import ProgressMessage
        from ..models.result_message import ResultMessage
        from ..models.start_message import StartMessage
        from ..models.task_message import TaskMessage

        d = dict(src_dict)

        def _parse_message(
            data: object,
        ) -> (
            ActionRequiredMessage
            | CancelledMessage
            | ErrorMessage
            | HeartbeatMessage
            | LogMessage
            | ProgressMessage
            | ResultMessage
            | StartMessage
            | TaskMessage
        ):
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_tool_message_type_0 = StartMessage.from_dict(data)

                return componentsschemas_tool_message_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_tool_message_type_1 = ProgressMessage.from_dict(data)

                return componentsschemas_tool_message_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_tool_message_type_2 = HeartbeatMessage.from_dict(data)

                return componentsschemas_tool_message_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_tool_message_type_3 = ActionRequiredMessage.from_dict(
                    data
                )

                return componentsschemas_tool_message_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_tool_message_type_4 = ResultMessage.from_dict(data)

                return componentsschemas_tool_message_type_4
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_tool_message_type_5 = ErrorMessage.from_dict(data)

                return componentsschemas_tool_message_type_5
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_tool_message_type_6 = CancelledMessage.from_dict(data)

                return componentsschemas_tool_message_type_6
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_tool_message_type_7 = LogMessage.from_dict(data)

                return componentsschemas_tool_message_type_7
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_tool_message_type_8 = TaskMessage.from_dict(data)

            return componentsschemas_tool_message_type_8

        message = _parse_message(d.pop("message"))

        tool_message_event = cls(
            message=message,
        )

        tool_message_event.additional_properties = d
        return tool_message_event

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
