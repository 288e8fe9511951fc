"""Contains all the data models used in inputs/outputs"""

from .action_request import ActionRequest
from .action_required_message import ActionRequiredMessage
from .activity_class import ActivityClass
from .agent_entry import AgentEntry
from .answer_chunk_event import AnswerChunkEvent
from .approval_answer import ApprovalAnswer
from .approval_answer_decision import ApprovalAnswerDecision
from .approval_answered import ApprovalAnswered
from .approval_counts import ApprovalCounts
from .approval_decision_event import ApprovalDecisionEvent
from .approval_request_event import ApprovalRequestEvent
from .artifact_check import ArtifactCheck
from .artifact_ref import ArtifactRef
from .artifact_state import ArtifactState
from .attempt import Attempt
from .attempt_cost import AttemptCost
from .attempt_view import AttemptView
from .caller import Caller
from .cancel_reason import CancelReason
from .cancelled_event import CancelledEvent
from .cancelled_message import CancelledMessage
from .catalog_entry import CatalogEntry
from .chain_entry import ChainEntry
from .changed_file import ChangedFile
from .config_info import ConfigInfo
from .cost_card_entry import CostCardEntry
from .cost_report import CostReport
from .cost_source import CostSource
from .cut import Cut
from .decided_by import DecidedBy
from .delivery_list import DeliveryList
from .delivery_view import DeliveryView
from .effort_report import EffortReport
from .enforcement import Enforcement
from .enforcement_state import EnforcementState
from .engine_health import EngineHealth
from .envelope import Envelope
from .envelope_labels import EnvelopeLabels
from .error_body import ErrorBody
from .error_detail import ErrorDetail
from .error_info import ErrorInfo
from .error_kind import ErrorKind
from .error_message import ErrorMessage
from .error_source import ErrorSource
from .exit_meaning import ExitMeaning
from .extra_args_mode import ExtraArgsMode
from .fallback_from import FallbackFrom
from .fallback_source import FallbackSource
from .feature_flags import FeatureFlags
from .gateway_report import GatewayReport
from .handoff import Handoff
from .health_report import HealthReport
from .healthz import Healthz
from .heartbeat_event import HeartbeatEvent
from .heartbeat_message import HeartbeatMessage
from .host_capability import HostCapability
from .kernel_support import KernelSupport
from .label_cancel import LabelCancel
from .label_cancel_labels import LabelCancelLabels
from .label_cancelled import LabelCancelled
from .level_support import LevelSupport
from .limit_view import LimitView
from .limits_report import LimitsReport
from .list_runs_status import ListRunsStatus
from .log_event import LogEvent
from .log_level import LogLevel
from .log_message import LogMessage
from .login import Login
from .login_state import LoginState
from .message_event import MessageEvent
from .metadata import Metadata
from .model_call_event import ModelCallEvent
from .on_dirty import OnDirty
from .openapi_json_response_200 import OpenapiJsonResponse200
from .pending_approvals import PendingApprovals
from .program_health import ProgramHealth
from .progress_message import ProgressMessage
from .provider_counts import ProviderCounts
from .provider_entry import ProviderEntry
from .provider_health import ProviderHealth
from .provider_listing import ProviderListing
from .provider_models import ProviderModels
from .provider_quota import ProviderQuota
from .queue_sample import QueueSample
from .queue_view import QueueView
from .quota_list import QuotaList
from .quota_window import QuotaWindow
from .rate_limit_event import RateLimitEvent
from .rate_limit_status import RateLimitStatus
from .rate_limit_window import RateLimitWindow
from .raw_event import RawEvent
from .raw_stream import RawStream
from .reasoning_absent_reason import ReasoningAbsentReason
from .reasoning_source import ReasoningSource
from .result_event import ResultEvent
from .result_message import ResultMessage
from .result_message_metrics_type_0 import ResultMessageMetricsType0
from .rotation_view import RotationView
from .run_accepted import RunAccepted
from .run_events_coalesce import RunEventsCoalesce
from .run_events_response_200 import RunEventsResponse200
from .run_events_response_200_event import RunEventsResponse200Event
from .run_page import RunPage
from .run_state import RunState
from .run_view import RunView
from .run_view_request import RunViewRequest
from .run_with_prompt import RunWithPrompt
from .run_with_skill import RunWithSkill
from .run_with_task import RunWithTask
from .sandbox_health import SandboxHealth
from .sandbox_level import SandboxLevel
from .sandbox_report import SandboxReport
from .session_busy import SessionBusy
from .session_deleted import SessionDeleted
from .session_event import SessionEvent
from .session_list import SessionList
from .session_rotated import SessionRotated
from .session_view import SessionView
from .session_view_labels import SessionViewLabels
from .skill import Skill
from .skill_row import SkillRow
from .skill_scope import SkillScope
from .spend_limits_body import SpendLimitsBody
from .start_event import StartEvent
from .start_message import StartMessage
from .state_counts import StateCounts
from .status_event_type_0 import StatusEventType0
from .status_event_type_1 import StatusEventType1
from .status_event_type_2 import StatusEventType2
from .status_event_type_3 import StatusEventType3
from .status_event_type_4 import StatusEventType4
from .status_event_type_5 import StatusEventType5
from .status_event_type_6 import StatusEventType6
from .status_event_type_7 import StatusEventType7
from .step_outcome import StepOutcome
from .step_report import StepReport
from .step_status import StepStatus
from .stream_end import StreamEnd
from .submitted_by import SubmittedBy
from .survivor import Survivor
from .task_done_event import TaskDoneEvent
from .task_error_event import TaskErrorEvent
from .task_input import TaskInput
from .task_message import TaskMessage
from .task_progress_event import TaskProgressEvent
from .task_started_event import TaskStartedEvent
from .task_submitted_event import TaskSubmittedEvent
from .text_delta_event import TextDeltaEvent
from .thinking_event import ThinkingEvent
from .tier import Tier
from .token_budget_body import TokenBudgetBody
from .token_created import TokenCreated
from .token_list import TokenList
from .token_request import TokenRequest
from .token_request_scopes_item import TokenRequestScopesItem
from .token_view import TokenView
from .tokens_used import TokensUsed
from .tool_activity import ToolActivity
from .tool_class import ToolClass
from .tool_envelope import ToolEnvelope
from .tool_envelope_metrics import ToolEnvelopeMetrics
from .tool_error_class import ToolErrorClass
from .tool_error_code import ToolErrorCode
from .tool_exit import ToolExit
from .tool_message_event import ToolMessageEvent
from .tool_result_event import ToolResultEvent
from .tool_status import ToolStatus
from .tool_use_event import ToolUseEvent
from .unreadable_run import UnreadableRun
from .usage import Usage
from .usage_by import UsageBy
from .usage_event import UsageEvent
from .usage_figures_view import UsageFiguresView
from .usage_figures_view_error_types import UsageFiguresViewErrorTypes
from .usage_report_view import UsageReportView
from .usage_row_view import UsageRowView
from .usage_scope import UsageScope
from .usage_source import UsageSource
from .v1_webhook_deliveries_status import V1WebhookDeliveriesStatus
from .warm_process_state import WarmProcessState
from .warm_report import WarmReport
from .wire_api import WireApi
from .worker_list import WorkerList
from .worker_view import WorkerView
from .workflow_envelope import WorkflowEnvelope
from .workflow_envelope_outputs import WorkflowEnvelopeOutputs
from .workflow_from_file import WorkflowFromFile
from .workflow_state import WorkflowState
from .workflow_state_event import WorkflowStateEvent
from .workflow_with_definition import WorkflowWithDefinition
from .workspace_mode import WorkspaceMode
from .workspace_report import WorkspaceReport

__all__ = (
    "ActionRequest",
    "ActionRequiredMessage",
    "ActivityClass",
    "AgentEntry",
    "AnswerChunkEvent",
    "ApprovalAnswer",
    "ApprovalAnswerDecision",
    "ApprovalAnswered",
    "ApprovalCounts",
    "ApprovalDecisionEvent",
    "ApprovalRequestEvent",
    "ArtifactCheck",
    "ArtifactRef",
    "ArtifactState",
    "Attempt",
    "AttemptCost",
    "AttemptView",
    "Caller",
    "CancelReason",
    "CancelledEvent",
    "CancelledMessage",
    "CatalogEntry",
    "ChainEntry",
    "ChangedFile",
    "ConfigInfo",
    "CostCardEntry",
    "CostReport",
    "CostSource",
    "Cut",
    "DecidedBy",
    "DeliveryList",
    "DeliveryView",
    "EffortReport",
    "Enforcement",
    "EnforcementState",
    "EngineHealth",
    "Envelope",
    "EnvelopeLabels",
    "ErrorBody",
    "ErrorDetail",
    "ErrorInfo",
    "ErrorKind",
    "ErrorMessage",
    "ErrorSource",
    "ExitMeaning",
    "ExtraArgsMode",
    "FallbackFrom",
    "FallbackSource",
    "FeatureFlags",
    "GatewayReport",
    "Handoff",
    "HealthReport",
    "Healthz",
    "HeartbeatEvent",
    "HeartbeatMessage",
    "HostCapability",
    "KernelSupport",
    "LabelCancel",
    "LabelCancelLabels",
    "LabelCancelled",
    "LevelSupport",
    "LimitView",
    "LimitsReport",
    "ListRunsStatus",
    "LogEvent",
    "LogLevel",
    "LogMessage",
    "Login",
    "LoginState",
    "MessageEvent",
    "Metadata",
    "ModelCallEvent",
    "OnDirty",
    "OpenapiJsonResponse200",
    "PendingApprovals",
    "ProgramHealth",
    "ProgressMessage",
    "ProviderCounts",
    "ProviderEntry",
    "ProviderHealth",
    "ProviderListing",
    "ProviderModels",
    "ProviderQuota",
    "QueueSample",
    "QueueView",
    "QuotaList",
    "QuotaWindow",
    "RateLimitEvent",
    "RateLimitStatus",
    "RateLimitWindow",
    "RawEvent",
    "RawStream",
    "ReasoningAbsentReason",
    "ReasoningSource",
    "ResultEvent",
    "ResultMessage",
    "ResultMessageMetricsType0",
    "RotationView",
    "RunAccepted",
    "RunEventsCoalesce",
    "RunEventsResponse200",
    "RunEventsResponse200Event",
    "RunPage",
    "RunState",
    "RunView",
    "RunViewRequest",
    "RunWithPrompt",
    "RunWithSkill",
    "RunWithTask",
    "SandboxHealth",
    "SandboxLevel",
    "SandboxReport",
    "SessionBusy",
    "SessionDeleted",
    "SessionEvent",
    "SessionList",
    "SessionRotated",
    "SessionView",
    "SessionViewLabels",
    "Skill",
    "SkillRow",
    "SkillScope",
    "SpendLimitsBody",
    "StartEvent",
    "StartMessage",
    "StateCounts",
    "StatusEventType0",
    "StatusEventType1",
    "StatusEventType2",
    "StatusEventType3",
    "StatusEventType4",
    "StatusEventType5",
    "StatusEventType6",
    "StatusEventType7",
    "StepOutcome",
    "StepReport",
    "StepStatus",
    "StreamEnd",
    "SubmittedBy",
    "Survivor",
    "TaskDoneEvent",
    "TaskErrorEvent",
    "TaskInput",
    "TaskMessage",
    "TaskProgressEvent",
    "TaskStartedEvent",
    "TaskSubmittedEvent",
    "TextDeltaEvent",
    "ThinkingEvent",
    "Tier",
    "TokenBudgetBody",
    "TokenCreated",
    "TokenList",
    "TokenRequest",
    "TokenRequestScopesItem",
    "TokenView",
    "TokensUsed",
    "ToolActivity",
    "ToolClass",
    "ToolEnvelope",
    "ToolEnvelopeMetrics",
    "ToolErrorClass",
    "ToolErrorCode",
    "ToolExit",
    "ToolMessageEvent",
    "ToolResultEvent",
    "ToolStatus",
    "ToolUseEvent",
    "UnreadableRun",
    "Usage",
    "UsageBy",
    "UsageEvent",
    "UsageFiguresView",
    "UsageFiguresViewErrorTypes",
    "UsageReportView",
    "UsageRowView",
    "UsageScope",
    "UsageSource",
    "V1WebhookDeliveriesStatus",
    "WarmProcessState",
    "WarmReport",
    "WireApi",
    "WorkerList",
    "WorkerView",
    "WorkflowEnvelope",
    "WorkflowEnvelopeOutputs",
    "WorkflowFromFile",
    "WorkflowState",
    "WorkflowStateEvent",
    "WorkflowWithDefinition",
    "WorkspaceMode",
    "WorkspaceReport",
)
