from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.answer_chunk_event import AnswerChunkEvent
    from ..models.approval_decision_event import ApprovalDecisionEvent
    from ..models.approval_request_event import ApprovalRequestEvent
    from ..models.cancelled_event import CancelledEvent
    from ..models.error_info import ErrorInfo
    from ..models.heartbeat_event import HeartbeatEvent
    from ..models.log_event import LogEvent
    from ..models.message_event import MessageEvent
    from ..models.model_call_event import ModelCallEvent
    from ..models.rate_limit_event import RateLimitEvent
    from ..models.raw_event import RawEvent
    from ..models.result_event import ResultEvent
    from ..models.session_event import SessionEvent
    from ..models.start_event import StartEvent
    from ..models.status_event_type_0 import StatusEventType0
    from ..models.status_event_type_1 import StatusEventType1
    from ..models.status_event_type_2 import StatusEventType2
    from ..models.status_event_type_3 import StatusEventType3
    from ..models.status_event_type_4 import StatusEventType4
    from ..models.status_event_type_5 import StatusEventType5
    from ..models.status_event_type_6 import StatusEventType6
    from ..models.status_event_type_7 import StatusEventType7
    from ..models.task_done_event import TaskDoneEvent
    from ..models.task_error_event import TaskErrorEvent
    from ..models.task_started_event import TaskStartedEvent
    from ..models.task_submitted_event import TaskSubmittedEvent
    from ..models.text_delta_event import TextDeltaEvent
    from ..models.thinking_event import ThinkingEvent
    from ..models.tool_message_event import ToolMessageEvent
    from ..models.tool_result_event import ToolResultEvent
    from ..models.tool_use_event import ToolUseEvent
    from ..models.usage_event import UsageEvent
    from ..models.workflow_state_event import WorkflowStateEvent


T = TypeVar("T", bound="TaskProgressEvent")


@_attrs_define
class TaskProgressEvent:
    """Body of `task_progress`: one event of a step's run, nested.

    Attributes:
        child_run_id (str): The run the event belongs to.
        event (AnswerChunkEvent | ApprovalDecisionEvent | ApprovalRequestEvent | CancelledEvent | ErrorInfo |
            HeartbeatEvent | LogEvent | MessageEvent | ModelCallEvent | RateLimitEvent | RawEvent | ResultEvent |
            SessionEvent | StartEvent | StatusEventType0 | StatusEventType1 | StatusEventType2 | StatusEventType3 |
            StatusEventType4 | StatusEventType5 | StatusEventType6 | StatusEventType7 | TaskDoneEvent | TaskErrorEvent |
            TaskProgressEvent | TaskStartedEvent | TaskSubmittedEvent | TextDeltaEvent | ThinkingEvent | ToolMessageEvent |
            ToolResultEvent | ToolUseEvent | UsageEvent | WorkflowStateEvent): One event of a run's stream: the common
            header plus a typed body.

            On the wire the header fields and the body's fields share one flat object:
            `{"v":1,"ts":"…","run_id":"…","seq":3,"provider":"claude","attempt":1,
            "type":"text_delta","text":"Hel"}`. `provider` and `attempt` are omitted
            until a provider attempt has started.

            Deserializing accepts any `v`; a consumer that cares checks it against
            [`PROTOCOL_VERSION`].
        task_id (str): The step's id.
    """

    child_run_id: str
    event: (
        AnswerChunkEvent
        | ApprovalDecisionEvent
        | ApprovalRequestEvent
        | CancelledEvent
        | ErrorInfo
        | HeartbeatEvent
        | LogEvent
        | MessageEvent
        | ModelCallEvent
        | RateLimitEvent
        | RawEvent
        | ResultEvent
        | SessionEvent
        | StartEvent
        | StatusEventType0
        | StatusEventType1
        | StatusEventType2
        | StatusEventType3
        | StatusEventType4
        | StatusEventType5
        | StatusEventType6
        | StatusEventType7
        | TaskDoneEvent
        | TaskErrorEvent
        | TaskProgressEvent
        | TaskStartedEvent
        | TaskSubmittedEvent
        | TextDeltaEvent
        | ThinkingEvent
        | ToolMessageEvent
        | ToolResultEvent
        | ToolUseEvent
        | UsageEvent
        | WorkflowStateEvent
    )
    task_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.approval_decision_event import ApprovalDecisionEvent
        from ..models.approval_request_event import ApprovalRequestEvent
        from ..models.cancelled_event import CancelledEvent
        from ..models.error_info import ErrorInfo
        from ..models.heartbeat_event import HeartbeatEvent
        from ..models.log_event import LogEvent
        from ..models.message_event import MessageEvent
        from ..models.model_call_event import ModelCallEvent
        from ..models.rate_limit_event import RateLimitEvent
        from ..models.raw_event import RawEvent
        from ..models.result_event import ResultEvent
        from ..models.session_event import SessionEvent
        from ..models.start_event import StartEvent
        from ..models.status_event_type_0 import StatusEventType0
        from ..models.status_event_type_1 import StatusEventType1
        from ..models.status_event_type_2 import StatusEventType2
        from ..models.status_event_type_3 import StatusEventType3
        from ..models.status_event_type_4 import StatusEventType4
        from ..models.status_event_type_5 import StatusEventType5
        from ..models.status_event_type_6 import StatusEventType6
        from ..models.status_event_type_7 import StatusEventType7
        from ..models.task_done_event import TaskDoneEvent
        from ..models.task_error_event import TaskErrorEvent
        from ..models.task_started_event import TaskStartedEvent
        from ..models.task_submitted_event import TaskSubmittedEvent
        from ..models.text_delta_event import TextDeltaEvent
        from ..models.thinking_event import ThinkingEvent
        from ..models.tool_message_event import ToolMessageEvent
        from ..models.tool_result_event import ToolResultEvent
        from ..models.tool_use_event import ToolUseEvent
        from ..models.usage_event import UsageEvent
        from ..models.workflow_state_event import WorkflowStateEvent

        child_run_id = self.child_run_id

        event: dict[str, Any]
        if (
            isinstance(self.event, StartEvent)
            or isinstance(self.event, SessionEvent)
            or isinstance(self.event, TextDeltaEvent)
            or isinstance(self.event, MessageEvent)
            or isinstance(self.event, ThinkingEvent)
            or isinstance(self.event, ToolUseEvent)
            or isinstance(self.event, ToolResultEvent)
            or isinstance(self.event, UsageEvent)
            or isinstance(self.event, RateLimitEvent)
            or isinstance(self.event, ModelCallEvent)
            or isinstance(self.event, StatusEventType0)
            or isinstance(self.event, StatusEventType1)
            or isinstance(self.event, StatusEventType2)
            or isinstance(self.event, StatusEventType3)
            or isinstance(self.event, StatusEventType4)
            or isinstance(self.event, StatusEventType5)
            or isinstance(self.event, StatusEventType6)
            or isinstance(self.event, StatusEventType7)
            or isinstance(self.event, HeartbeatEvent)
            or isinstance(self.event, LogEvent)
            or isinstance(self.event, RawEvent)
            or isinstance(self.event, ErrorInfo)
            or isinstance(self.event, CancelledEvent)
            or isinstance(self.event, ResultEvent)
            or isinstance(self.event, ToolMessageEvent)
            or isinstance(self.event, WorkflowStateEvent)
            or isinstance(self.event, TaskSubmittedEvent)
            or isinstance(self.event, TaskStartedEvent)
            or isinstance(self.event, TaskProgressEvent)
            or isinstance(self.event, TaskErrorEvent)
            or isinstance(self.event, TaskDoneEvent)
            or isinstance(self.event, ApprovalRequestEvent)
            or isinstance(self.event, ApprovalDecisionEvent)
        ):
            event = self.event.to_dict()
        else:
            event = self.event.to_dict()

        task_id = self.task_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "child_run_id": child_run_id,
                "event": event,
                "task_id": task_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.answer_chunk_event import AnswerChunkEvent
        from ..models.approval_decision_event import ApprovalDecisionEvent
        from ..models.approval_request_event import ApprovalRequestEvent
        from ..models.cancelled_event import CancelledEvent
        from ..models.error_info import ErrorInfo
        from ..models.heartbeat_event import HeartbeatEvent
        from ..models.log_event import LogEvent
        from ..models.message_event import MessageEvent
        from ..models.model_call_event import ModelCallEvent
        from ..models.rate_limit_event import RateLimitEvent
        from ..models.raw_event import RawEvent
        from ..models.result_event import ResultEvent
        from ..models.session_event import SessionEvent
        from ..models.start_event import StartEvent
        from ..models.status_event_type_0 import StatusEventType0
        from ..models.status_event_type_1 import StatusEventType1
        from ..models.status_event_type_2 import StatusEventType2
        from ..models.status_event_type_3 import StatusEventType3
        from ..models.status_event_type_4 import StatusEventType4
        from ..models.status_event_type_5 import StatusEventType5
        from ..models.status_event_type_6 import StatusEventType6
        from ..models.status_event_type_7 import StatusEventType7
        from ..models.task_done_event import TaskDoneEvent
        from ..models.task_error_event import TaskErrorEvent
        from ..models.task_started_event import TaskStartedEvent
        from ..models.task_submitted_event import TaskSubmittedEvent
        from ..models.text_delta_event import TextDeltaEvent
        from ..models.thinking_event import ThinkingEvent
        from ..models.tool_message_event import ToolMessageEvent
        from ..models.tool_result_event import ToolResultEvent
        from ..models.tool_use_event import ToolUseEvent
        from ..models.usage_event import UsageEvent
        from ..models.workflow_state_event import WorkflowStateEvent

        d = dict(src_dict)
        child_run_id = d.pop("child_run_id")

        def _parse_event(
            data: object,
        ) -> (
            AnswerChunkEvent
            | ApprovalDecisionEvent
            | ApprovalRequestEvent
            | CancelledEvent
            | ErrorInfo
            | HeartbeatEvent
            | LogEvent
            | MessageEvent
            | ModelCallEvent
            | RateLimitEvent
            | RawEvent
            | ResultEvent
            | SessionEvent
            | StartEvent
            | StatusEventType0
            | StatusEventType1
            | StatusEventType2
            | StatusEventType3
            | StatusEventType4
            | StatusEventType5
            | StatusEventType6
            | StatusEventType7
            | TaskDoneEvent
            | TaskErrorEvent
            | TaskProgressEvent
            | TaskStartedEvent
            | TaskSubmittedEvent
            | TextDeltaEvent
            | ThinkingEvent
            | ToolMessageEvent
            | ToolResultEvent
            | ToolUseEvent
            | UsageEvent
            | WorkflowStateEvent
        ):
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_0 = StartEvent.from_dict(data)

                return componentsschemas_event_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_1 = SessionEvent.from_dict(data)

                return componentsschemas_event_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_2 = TextDeltaEvent.from_dict(data)

                return componentsschemas_event_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_3 = MessageEvent.from_dict(data)

                return componentsschemas_event_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_4 = ThinkingEvent.from_dict(data)

                return componentsschemas_event_type_4
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_5 = ToolUseEvent.from_dict(data)

                return componentsschemas_event_type_5
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_6 = ToolResultEvent.from_dict(data)

                return componentsschemas_event_type_6
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_7 = UsageEvent.from_dict(data)

                return componentsschemas_event_type_7
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_8 = RateLimitEvent.from_dict(data)

                return componentsschemas_event_type_8
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_9 = ModelCallEvent.from_dict(data)

                return componentsschemas_event_type_9
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_status_event_type_0 = StatusEventType0.from_dict(data)

                return componentsschemas_status_event_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_status_event_type_1 = StatusEventType1.from_dict(data)

                return componentsschemas_status_event_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_status_event_type_2 = StatusEventType2.from_dict(data)

                return componentsschemas_status_event_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_status_event_type_3 = StatusEventType3.from_dict(data)

                return componentsschemas_status_event_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_status_event_type_4 = StatusEventType4.from_dict(data)

                return componentsschemas_status_event_type_4
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_status_event_type_5 = StatusEventType5.from_dict(data)

                return componentsschemas_status_event_type_5
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_status_event_type_6 = StatusEventType6.from_dict(data)

                return componentsschemas_status_event_type_6
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_status_event_type_7 = StatusEventType7.from_dict(data)

                return componentsschemas_status_event_type_7
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_11 = HeartbeatEvent.from_dict(data)

                return componentsschemas_event_type_11
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_12 = LogEvent.from_dict(data)

                return componentsschemas_event_type_12
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_13 = RawEvent.from_dict(data)

                return componentsschemas_event_type_13
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_14 = ErrorInfo.from_dict(data)

                return componentsschemas_event_type_14
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_15 = CancelledEvent.from_dict(data)

                return componentsschemas_event_type_15
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_16 = ResultEvent.from_dict(data)

                return componentsschemas_event_type_16
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_17 = ToolMessageEvent.from_dict(data)

                return componentsschemas_event_type_17
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_18 = WorkflowStateEvent.from_dict(data)

                return componentsschemas_event_type_18
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_19 = TaskSubmittedEvent.from_dict(data)

                return componentsschemas_event_type_19
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_20 = TaskStartedEvent.from_dict(data)

                return componentsschemas_event_type_20
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_21 = TaskProgressEvent.from_dict(data)

                return componentsschemas_event_type_21
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_22 = TaskErrorEvent.from_dict(data)

                return componentsschemas_event_type_22
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_23 = TaskDoneEvent.from_dict(data)

                return componentsschemas_event_type_23
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_24 = ApprovalRequestEvent.from_dict(data)

                return componentsschemas_event_type_24
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_25 = ApprovalDecisionEvent.from_dict(data)

                return componentsschemas_event_type_25
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_event_type_26 = AnswerChunkEvent.from_dict(data)

            return componentsschemas_event_type_26

        event = _parse_event(d.pop("event"))

        task_id = d.pop("task_id")

        task_progress_event = cls(
            child_run_id=child_run_id,
            event=event,
            task_id=task_id,
        )

        task_progress_event.additional_properties = d
        return task_progress_event

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
