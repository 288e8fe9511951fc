from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.error_kind import ErrorKind, check_error_kind
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.approval_counts import ApprovalCounts
    from ..models.attempt import Attempt
    from ..models.cost_report import CostReport
    from ..models.effort_report import EffortReport
    from ..models.envelope_labels import EnvelopeLabels
    from ..models.fallback_source import FallbackSource
    from ..models.gateway_report import GatewayReport
    from ..models.metadata import Metadata
    from ..models.sandbox_report import SandboxReport
    from ..models.session_rotated import SessionRotated
    from ..models.tokens_used import TokensUsed
    from ..models.tool_envelope import ToolEnvelope
    from ..models.warm_report import WarmReport
    from ..models.workflow_envelope import WorkflowEnvelope
    from ..models.workspace_report import WorkspaceReport


T = TypeVar("T", bound="Envelope")


@_attrs_define
class Envelope:
    """The final result of a run: what `agentgate run` prints, and what the
    `result` event carries.

    Field-for-field compatible with the shell-wrapper envelope users migrate
    from: every wrapper field keeps its name, type and place; agentgate only
    adds fields. Which fields are present:

    - Wrapper fields are always present, as the wrapper wrote them:
      `response` and `reasoning` are strings, empty when there is none (see
      `metadata.reasoning_available`); `tokens_used` counts are numbers, 0 when
      not reported (see `metadata.token_usage_available`). Where the wrapper
      had no way to say "unknown", agentgate writes `null`: `session_id` before
      the provider gave one, `tokens_used.cost_usd` when the cost is unknown (0
      would claim the run was free), `model_resolution` when the model was used
      as requested, `metadata.tool_activity` when the provider's output cannot
      show tool calls (a plain-text CLI; where it can, a run without tool
      calls has zero counts and `activity_class: none`).
    - `error`, `error_type`, `exit_code` and `recoverable` appear on failure
      only, as in the wrapper: their absence means success.
    - agentgate's additions are always present, `null` when unknown or not
      applicable.

    One difference in meaning: `tokens_used.input_tokens` includes cache reads
    and writes (see [`Usage`]), where the Claude wrapper reported uncached
    input only.

        Attributes:
            agent (None | str): The agent of the last attempt, when the run used named agents.
            approvals (ApprovalCounts | None): The permission requests of a run in `ask` mode, counted (each is an
                `approval_request` and an `approval_decision` event); `null` for a
                run whose CLI was never asked to ask.
            attempts (list[Attempt]): One entry per agent tried, in order, the last one included.
            chain (None | str): The failover chain the run followed, when it used one.
            context_tokens (int | None): Context size after the last model call (see [`Usage`]).
            duration_ms (int): Wall-clock duration of the whole run, in milliseconds. Default: 0.
            metadata (Metadata): The envelope's `metadata`.
            model (None | str): The model of the last attempt, as the provider reported it or, failing
                that, as requested.
            model_resolution (None | str): How the requested model was resolved, e.g. `claude model 'opus' ->
                'claude-opus-4-1' (alias)`; `null` when it was used as requested.
            provider (None | str): The provider of the last attempt (the one that answered, on success).
            reasoning (str): The model's reasoning, when it exposed any; empty otherwise. Default: ''.
            reasoning_tokens (int): Output tokens spent on reasoning (part of `tokens_used.output_tokens`). Default: 0.
            reset_at (datetime.datetime | None): When the limit that stopped the run resets: RFC 3339, UTC.
            response (str): The answer: the final assistant text. On failure, what the model said
                before it failed (the error's own text is in `error`), else empty. Default: ''.
            retry_after_s (int | None): Seconds to wait before retrying, when a provider said.
            run_id (str): The run's id, as in its events. Default: ''.
            session_id (None | str): The provider's native session id, to resume; `null` when unknown.
            session_recreated (bool): Whether the session to resume had vanished and a new one was started
                in its place (`session_id` is then the new one). Default: False.
            stderr_tail (None | str): The last lines of the last attempt's stderr (bounded), `null` when it
                wrote none.
            structured_output (Any): With `--output-schema`: the answer's JSON, extracted from `response`
                (fences and surrounding prose removed) and valid against the schema;
                `null` without a schema or on failure.
            tokens_used (TokensUsed): The envelope's `tokens_used`: the wrapper's token figures, with
                [`Usage`]'s semantics.
            tool (None | ToolEnvelope): A tool run (`agentgate tool`, a call through `agentgate mcp`): its
                whole result; `null` for an agent run.
            warm (None | WarmReport): The process that served a turn of a warm session (`--warm`);
                `null` for a run whose CLI was started for it alone.
            workflow (None | WorkflowEnvelope): A workflow run (`agentgate workflow run`): its steps and outputs;
                `null` for any other run.
            workspace (None | WorkspaceReport): With `workspace: worktree`: the git worktree the run ran in, whether
                it was kept, and what the run changed there; `null` for a run in the
                shared working tree.
            cost (CostReport | None | Unset): How `tokens_used.cost_usd` was worked out: the CLI's figure, the
                rate card's from the run's tokens, or both with their difference
                and whether it is flagged; absent from envelopes that ran no agent.
            effort (EffortReport | None | Unset): The reasoning effort and thinking budget asked for
                (`--reasoning-effort`, `--thinking-budget`) and what the CLI was
                given. Like `skill`, left out when the run asked for neither.
            error (None | str | Unset): Failure only: the error message.
            error_type (ErrorKind | None | Unset): Failure only: the error's kind.
            exit_code (int | None | Unset): Failure only: the exit status of `agentgate run` for this result (1,
                2, 75, 124 or 130). The provider CLI's own exit status is in
                `attempts[].exit_code`.
            fallback (FallbackSource | None | Unset): Where `agentgate run --reasoning-fallback` read the figures from;
                absent from every other envelope.
            gateway (GatewayReport | None | Unset): What the run's model gateway saw (`--gateway`): the calls, the
                wire's usage beside the CLI's and where they differ; absent when no
                gateway ran.
            labels (EnvelopeLabels | Unset): The run's labels (`--label key=value`, the API's `labels`), by key.
                Unlike the other fields it is left out when the run has none, so an
                unlabelled run's envelope is what it was before labels existed.
            reasoning_summary (str | Unset): `reasoning` in the wrappers' compact form: placeholder lines dropped,
                whitespace collapsed to single spaces, at most 600 characters (a cut
                one ends with `…`). An agentgate addition: the wrappers' `reasoning`
                was this compact form, agentgate's is the full text. Like `labels`,
                left out when there is no reasoning.
            recoverable (bool | None | Unset): Failure only: whether retrying later or elsewhere may succeed.
            sandbox (None | SandboxReport | Unset): The sandbox the CLI ran in (`--sandbox`): the level and what
                enforced each part; absent when the level is `off`.
            session_rotated (None | SessionRotated | Unset): The session rotated on this turn (`max_context_tokens`): a new
                native session was started under the same name instead of resuming
                the old one; absent when the turn resumed or started as usual.
            skill (None | str | Unset): The skill the run invoked (`--skill NAME`, the API's `skill`). Like
                `labels`, left out when the run invoked none.
    """

    agent: None | str
    approvals: ApprovalCounts | None
    attempts: list[Attempt]
    chain: None | str
    context_tokens: int | None
    metadata: Metadata
    model: None | str
    model_resolution: None | str
    provider: None | str
    reset_at: datetime.datetime | None
    retry_after_s: int | None
    session_id: None | str
    stderr_tail: None | str
    structured_output: Any
    tokens_used: TokensUsed
    tool: None | ToolEnvelope
    warm: None | WarmReport
    workflow: None | WorkflowEnvelope
    workspace: None | WorkspaceReport
    duration_ms: int = 0
    reasoning: str = ""
    reasoning_tokens: int = 0
    response: str = ""
    run_id: str = ""
    session_recreated: bool = False
    cost: CostReport | None | Unset = UNSET
    effort: EffortReport | None | Unset = UNSET
    error: None | str | Unset = UNSET
    error_type: ErrorKind | None | Unset = UNSET
    exit_code: int | None | Unset = UNSET
    fallback: FallbackSource | None | Unset = UNSET
    gateway: GatewayReport | None | Unset = UNSET
    labels: EnvelopeLabels | Unset = UNSET
    reasoning_summary: str | Unset = UNSET
    recoverable: bool | None | Unset = UNSET
    sandbox: None | SandboxReport | Unset = UNSET
    session_rotated: None | SessionRotated | Unset = UNSET
    skill: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.approval_counts import ApprovalCounts
        from ..models.cost_report import CostReport
        from ..models.effort_report import EffortReport
        from ..models.fallback_source import FallbackSource
        from ..models.gateway_report import GatewayReport
        from ..models.sandbox_report import SandboxReport
        from ..models.session_rotated import SessionRotated
        from ..models.tool_envelope import ToolEnvelope
        from ..models.warm_report import WarmReport
        from ..models.workflow_envelope import WorkflowEnvelope
        from ..models.workspace_report import WorkspaceReport

        agent: None | str
        agent = self.agent

        approvals: dict[str, Any] | None
        if isinstance(self.approvals, ApprovalCounts):
            approvals = self.approvals.to_dict()
        else:
            approvals = self.approvals

        attempts = []
        for attempts_item_data in self.attempts:
            attempts_item = attempts_item_data.to_dict()
            attempts.append(attempts_item)

        chain: None | str
        chain = self.chain

        context_tokens: int | None
        context_tokens = self.context_tokens

        duration_ms = self.duration_ms

        metadata = self.metadata.to_dict()

        model: None | str
        model = self.model

        model_resolution: None | str
        model_resolution = self.model_resolution

        provider: None | str
        provider = self.provider

        reasoning = self.reasoning

        reasoning_tokens = self.reasoning_tokens

        reset_at: None | str
        if isinstance(self.reset_at, datetime.datetime):
            reset_at = self.reset_at.isoformat()
        else:
            reset_at = self.reset_at

        response = self.response

        retry_after_s: int | None
        retry_after_s = self.retry_after_s

        run_id = self.run_id

        session_id: None | str
        session_id = self.session_id

        session_recreated = self.session_recreated

        stderr_tail: None | str
        stderr_tail = self.stderr_tail

        structured_output = self.structured_output

        tokens_used = self.tokens_used.to_dict()

        tool: dict[str, Any] | None
        if isinstance(self.tool, ToolEnvelope):
            tool = self.tool.to_dict()
        else:
            tool = self.tool

        warm: dict[str, Any] | None
        if isinstance(self.warm, WarmReport):
            warm = self.warm.to_dict()
        else:
            warm = self.warm

        workflow: dict[str, Any] | None
        if isinstance(self.workflow, WorkflowEnvelope):
            workflow = self.workflow.to_dict()
        else:
            workflow = self.workflow

        workspace: dict[str, Any] | None
        if isinstance(self.workspace, WorkspaceReport):
            workspace = self.workspace.to_dict()
        else:
            workspace = self.workspace

        cost: dict[str, Any] | None | Unset
        if isinstance(self.cost, Unset):
            cost = UNSET
        elif isinstance(self.cost, CostReport):
            cost = self.cost.to_dict()
        else:
            cost = self.cost

        effort: dict[str, Any] | None | Unset
        if isinstance(self.effort, Unset):
            effort = UNSET
        elif isinstance(self.effort, EffortReport):
            effort = self.effort.to_dict()
        else:
            effort = self.effort

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        error_type: None | str | Unset
        if isinstance(self.error_type, Unset):
            error_type = UNSET
        elif isinstance(self.error_type, str):
            error_type = self.error_type
        else:
            error_type = self.error_type

        exit_code: int | None | Unset
        if isinstance(self.exit_code, Unset):
            exit_code = UNSET
        else:
            exit_code = self.exit_code

        fallback: dict[str, Any] | None | Unset
        if isinstance(self.fallback, Unset):
            fallback = UNSET
        elif isinstance(self.fallback, FallbackSource):
            fallback = self.fallback.to_dict()
        else:
            fallback = self.fallback

        gateway: dict[str, Any] | None | Unset
        if isinstance(self.gateway, Unset):
            gateway = UNSET
        elif isinstance(self.gateway, GatewayReport):
            gateway = self.gateway.to_dict()
        else:
            gateway = self.gateway

        labels: dict[str, Any] | Unset = UNSET
        if not isinstance(self.labels, Unset):
            labels = self.labels.to_dict()

        reasoning_summary = self.reasoning_summary

        recoverable: bool | None | Unset
        if isinstance(self.recoverable, Unset):
            recoverable = UNSET
        else:
            recoverable = self.recoverable

        sandbox: dict[str, Any] | None | Unset
        if isinstance(self.sandbox, Unset):
            sandbox = UNSET
        elif isinstance(self.sandbox, SandboxReport):
            sandbox = self.sandbox.to_dict()
        else:
            sandbox = self.sandbox

        session_rotated: dict[str, Any] | None | Unset
        if isinstance(self.session_rotated, Unset):
            session_rotated = UNSET
        elif isinstance(self.session_rotated, SessionRotated):
            session_rotated = self.session_rotated.to_dict()
        else:
            session_rotated = self.session_rotated

        skill: None | str | Unset
        if isinstance(self.skill, Unset):
            skill = UNSET
        else:
            skill = self.skill

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent": agent,
                "approvals": approvals,
                "attempts": attempts,
                "chain": chain,
                "context_tokens": context_tokens,
                "duration_ms": duration_ms,
                "metadata": metadata,
                "model": model,
                "model_resolution": model_resolution,
                "provider": provider,
                "reasoning": reasoning,
                "reasoning_tokens": reasoning_tokens,
                "reset_at": reset_at,
                "response": response,
                "retry_after_s": retry_after_s,
                "run_id": run_id,
                "session_id": session_id,
                "session_recreated": session_recreated,
                "stderr_tail": stderr_tail,
                "structured_output": structured_output,
                "tokens_used": tokens_used,
                "tool": tool,
                "warm": warm,
                "workflow": workflow,
                "workspace": workspace,
            }
        )
        if cost is not UNSET:
            field_dict["cost"] = cost
        if effort is not UNSET:
            field_dict["effort"] = effort
        if error is not UNSET:
            field_dict["error"] = error
        if error_type is not UNSET:
            field_dict["error_type"] = error_type
        if exit_code is not UNSET:
            field_dict["exit_code"] = exit_code
        if fallback is not UNSET:
            field_dict["fallback"] = fallback
        if gateway is not UNSET:
            field_dict["gateway"] = gateway
        if labels is not UNSET:
            field_dict["labels"] = labels
        if reasoning_summary is not UNSET:
            field_dict["reasoning_summary"] = reasoning_summary
        if recoverable is not UNSET:
            field_dict["recoverable"] = recoverable
        if sandbox is not UNSET:
            field_dict["sandbox"] = sandbox
        if session_rotated is not UNSET:
            field_dict["session_rotated"] = session_rotated
        if skill is not UNSET:
            field_dict["skill"] = skill

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.approval_counts import ApprovalCounts
        from ..models.attempt import Attempt
        from ..models.cost_report import CostReport
        from ..models.effort_report import EffortReport
        from ..models.envelope_labels import EnvelopeLabels
        from ..models.fallback_source import FallbackSource
        from ..models.gateway_report import GatewayReport
        from ..models.metadata import Metadata
        from ..models.sandbox_report import SandboxReport
        from ..models.session_rotated import SessionRotated
        from ..models.tokens_used import TokensUsed
        from ..models.tool_envelope import ToolEnvelope
        from ..models.warm_report import WarmReport
        from ..models.workflow_envelope import WorkflowEnvelope
        from ..models.workspace_report import WorkspaceReport

        d = dict(src_dict)

        def _parse_agent(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        agent = _parse_agent(d.pop("agent"))

        def _parse_approvals(data: object) -> ApprovalCounts | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                approvals_type_0 = ApprovalCounts.from_dict(data)

                return approvals_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ApprovalCounts | None, data)

        approvals = _parse_approvals(d.pop("approvals"))

        attempts = []
        _attempts = d.pop("attempts")
        for attempts_item_data in _attempts:
            attempts_item = Attempt.from_dict(attempts_item_data)

            attempts.append(attempts_item)

        def _parse_chain(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        chain = _parse_chain(d.pop("chain"))

        def _parse_context_tokens(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        context_tokens = _parse_context_tokens(d.pop("context_tokens"))

        duration_ms = d.pop("duration_ms")

        metadata = Metadata.from_dict(d.pop("metadata"))

        def _parse_model(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        model = _parse_model(d.pop("model"))

        def _parse_model_resolution(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        model_resolution = _parse_model_resolution(d.pop("model_resolution"))

        def _parse_provider(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        provider = _parse_provider(d.pop("provider"))

        reasoning = d.pop("reasoning")

        reasoning_tokens = d.pop("reasoning_tokens")

        def _parse_reset_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reset_at_type_0 = datetime.datetime.fromisoformat(data)

                return reset_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        reset_at = _parse_reset_at(d.pop("reset_at"))

        response = d.pop("response")

        def _parse_retry_after_s(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        retry_after_s = _parse_retry_after_s(d.pop("retry_after_s"))

        run_id = d.pop("run_id")

        def _parse_session_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        session_id = _parse_session_id(d.pop("session_id"))

        session_recreated = d.pop("session_recreated")

        def _parse_stderr_tail(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        stderr_tail = _parse_stderr_tail(d.pop("stderr_tail"))

        structured_output = d.pop("structured_output")

        tokens_used = TokensUsed.from_dict(d.pop("tokens_used"))

        def _parse_tool(data: object) -> None | ToolEnvelope:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tool_type_0 = ToolEnvelope.from_dict(data)

                return tool_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ToolEnvelope, data)

        tool = _parse_tool(d.pop("tool"))

        def _parse_warm(data: object) -> None | WarmReport:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                warm_type_0 = WarmReport.from_dict(data)

                return warm_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | WarmReport, data)

        warm = _parse_warm(d.pop("warm"))

        def _parse_workflow(data: object) -> None | WorkflowEnvelope:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                workflow_type_0 = WorkflowEnvelope.from_dict(data)

                return workflow_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | WorkflowEnvelope, data)

        workflow = _parse_workflow(d.pop("workflow"))

        def _parse_workspace(data: object) -> None | WorkspaceReport:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                workspace_type_0 = WorkspaceReport.from_dict(data)

                return workspace_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | WorkspaceReport, data)

        workspace = _parse_workspace(d.pop("workspace"))

        def _parse_cost(data: object) -> CostReport | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                cost_type_0 = CostReport.from_dict(data)

                return cost_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CostReport | None | Unset, data)

        cost = _parse_cost(d.pop("cost", UNSET))

        def _parse_effort(data: object) -> EffortReport | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                effort_type_0 = EffortReport.from_dict(data)

                return effort_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EffortReport | None | Unset, data)

        effort = _parse_effort(d.pop("effort", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_error_type(data: object) -> ErrorKind | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                error_type_type_0 = check_error_kind(data)

                return error_type_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ErrorKind | None | Unset, data)

        error_type = _parse_error_type(d.pop("error_type", UNSET))

        def _parse_exit_code(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        exit_code = _parse_exit_code(d.pop("exit_code", UNSET))

        def _parse_fallback(data: object) -> FallbackSource | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                fallback_type_0 = FallbackSource.from_dict(data)

                return fallback_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FallbackSource | None | Unset, data)

        fallback = _parse_fallback(d.pop("fallback", UNSET))

        def _parse_gateway(data: object) -> GatewayReport | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                gateway_type_0 = GatewayReport.from_dict(data)

                return gateway_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GatewayReport | None | Unset, data)

        gateway = _parse_gateway(d.pop("gateway", UNSET))

        _labels = d.pop("labels", UNSET)
        labels: EnvelopeLabels | Unset
        if isinstance(_labels, Unset):
            labels = UNSET
        else:
            labels = EnvelopeLabels.from_dict(_labels)

        reasoning_summary = d.pop("reasoning_summary", UNSET)

        def _parse_recoverable(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        recoverable = _parse_recoverable(d.pop("recoverable", UNSET))

        def _parse_sandbox(data: object) -> None | SandboxReport | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                sandbox_type_0 = SandboxReport.from_dict(data)

                return sandbox_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SandboxReport | Unset, data)

        sandbox = _parse_sandbox(d.pop("sandbox", UNSET))

        def _parse_session_rotated(data: object) -> None | SessionRotated | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                session_rotated_type_0 = SessionRotated.from_dict(data)

                return session_rotated_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SessionRotated | Unset, data)

        session_rotated = _parse_session_rotated(d.pop("session_rotated", UNSET))

        def _parse_skill(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        skill = _parse_skill(d.pop("skill", UNSET))

        envelope = cls(
            agent=agent,
            approvals=approvals,
            attempts=attempts,
            chain=chain,
            context_tokens=context_tokens,
            duration_ms=duration_ms,
            metadata=metadata,
            model=model,
            model_resolution=model_resolution,
            provider=provider,
            reasoning=reasoning,
            reasoning_tokens=reasoning_tokens,
            reset_at=reset_at,
            response=response,
            retry_after_s=retry_after_s,
            run_id=run_id,
            session_id=session_id,
            session_recreated=session_recreated,
            stderr_tail=stderr_tail,
            structured_output=structured_output,
            tokens_used=tokens_used,
            tool=tool,
            warm=warm,
            workflow=workflow,
            workspace=workspace,
            cost=cost,
            effort=effort,
            error=error,
            error_type=error_type,
            exit_code=exit_code,
            fallback=fallback,
            gateway=gateway,
            labels=labels,
            reasoning_summary=reasoning_summary,
            recoverable=recoverable,
            sandbox=sandbox,
            session_rotated=session_rotated,
            skill=skill,
        )

        envelope.additional_properties = d
        return envelope

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
