from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.tool_error_class import ToolErrorClass, check_tool_error_class
from ..models.tool_status import ToolStatus, check_tool_status

if TYPE_CHECKING:
    from ..models.action_request import ActionRequest
    from ..models.artifact_check import ArtifactCheck
    from ..models.limits_report import LimitsReport
    from ..models.tool_envelope_metrics import ToolEnvelopeMetrics
    from ..models.tool_exit import ToolExit


T = TypeVar("T", bound="ToolEnvelope")


@_attrs_define
class ToolEnvelope:
    """The result of one tool run.

    Every field is always present, `null` (or empty) when not known or not
    applicable, so the shape is stable.

        Attributes:
            actions (list[ActionRequest]): The decisions the tool asked for, in order.
            artifacts (list[ArtifactCheck]): The artifacts of the tool's `result`, each checked against its file.
            class_ (None | ToolErrorClass): The code's class from the error-code registry; `null` on `ok`.
            code (None | str): The error code: the tool's own (`E_INPUT_NOT_FOUND`) or the runner's
                (`E_TIMEOUT`, `E_HEARTBEAT_MISSED`, `E_CPU_LIMIT`, …); `null` on `ok`.
            cpu_ms (int | None): CPU time the tool (and its children) used, in milliseconds.
            duration_ms (int): Wall-clock duration, in milliseconds.
            error (None | str): What went wrong, for humans; `null` on `ok`.
            exit_code (int): The exit status of `agentgate tool` for this result (see
                [`ToolEnvelope::exit_status_for`]).
            hint (None | str): What to do about it, from the tool.
            limits (LimitsReport | None): The limits and what enforced each; `null` if the tool never started.
            max_rss_kib (int | None): Peak resident memory of the tool's largest process, in KiB.
            metrics (ToolEnvelopeMetrics): The metrics of the tool's `result`.
            parent_run_id (None | str): The agent run that called the tool (through MCP), if any.
            resumed_from (None | str): The earlier run whose workspace (and checkpoints) this run continued.
            retryable (bool): Whether the same call may succeed if retried (the registry's word for
                the code; `false` for codes it does not know).
            run_id (str): The run's id, as in its events and the store.
            status (ToolStatus): How a tool run ended.

                - `ok`: The tool reported a `result` with status `ok` (or exited with its
                `ok` code without one) and every check passed.
                - `error`: The tool, or the runner on its behalf, reported an error: see `code`.
                - `cancelled`: The run was cancelled.
                - `action_required`: The tool asked for a decision (`action_required`) and stopped without
                a result: answer `actions` and call it again.
            stderr_tail (None | str): The last lines of the tool's stderr (bounded); `null` if it wrote none.
            tool (str): The tool's name.
            tool_exit (None | ToolExit): How the tool process ended; `null` if it never started.
            version (str): The tool's version, from its manifest.
            warnings (list[str]): Things the runner noticed that did not change the status: an exit
                code the manifest does not list, output after the result, a protocol
                version other than 1.
            workspace (None | str): The run's workspace (`WORKSPACE`).
    """

    actions: list[ActionRequest]
    artifacts: list[ArtifactCheck]
    class_: None | ToolErrorClass
    code: None | str
    cpu_ms: int | None
    duration_ms: int
    error: None | str
    exit_code: int
    hint: None | str
    limits: LimitsReport | None
    max_rss_kib: int | None
    metrics: ToolEnvelopeMetrics
    parent_run_id: None | str
    resumed_from: None | str
    retryable: bool
    run_id: str
    status: ToolStatus
    stderr_tail: None | str
    tool: str
    tool_exit: None | ToolExit
    version: str
    warnings: list[str]
    workspace: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.limits_report import LimitsReport
        from ..models.tool_exit import ToolExit

        actions = []
        for actions_item_data in self.actions:
            actions_item = actions_item_data.to_dict()
            actions.append(actions_item)

        artifacts = []
        for artifacts_item_data in self.artifacts:
            artifacts_item = artifacts_item_data.to_dict()
            artifacts.append(artifacts_item)

        class_: None | str
        if isinstance(self.class_, str):
            class_ = self.class_
        else:
            class_ = self.class_

        code: None | str
        code = self.code

        cpu_ms: int | None
        cpu_ms = self.cpu_ms

        duration_ms = self.duration_ms

        error: None | str
        error = self.error

        exit_code = self.exit_code

        hint: None | str
        hint = self.hint

        limits: dict[str, Any] | None
        if isinstance(self.limits, LimitsReport):
            limits = self.limits.to_dict()
        else:
            limits = self.limits

        max_rss_kib: int | None
        max_rss_kib = self.max_rss_kib

        metrics = self.metrics.to_dict()

        parent_run_id: None | str
        parent_run_id = self.parent_run_id

        resumed_from: None | str
        resumed_from = self.resumed_from

        retryable = self.retryable

        run_id = self.run_id

        status: str = self.status

        stderr_tail: None | str
        stderr_tail = self.stderr_tail

        tool = self.tool

        tool_exit: dict[str, Any] | None
        if isinstance(self.tool_exit, ToolExit):
            tool_exit = self.tool_exit.to_dict()
        else:
            tool_exit = self.tool_exit

        version = self.version

        warnings = self.warnings

        workspace: None | str
        workspace = self.workspace

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "actions": actions,
                "artifacts": artifacts,
                "class": class_,
                "code": code,
                "cpu_ms": cpu_ms,
                "duration_ms": duration_ms,
                "error": error,
                "exit_code": exit_code,
                "hint": hint,
                "limits": limits,
                "max_rss_kib": max_rss_kib,
                "metrics": metrics,
                "parent_run_id": parent_run_id,
                "resumed_from": resumed_from,
                "retryable": retryable,
                "run_id": run_id,
                "status": status,
                "stderr_tail": stderr_tail,
                "tool": tool,
                "tool_exit": tool_exit,
                "version": version,
                "warnings": warnings,
                "workspace": workspace,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.action_request import ActionRequest
        from ..models.artifact_check import ArtifactCheck
        from ..models.limits_report import LimitsReport
        from ..models.tool_envelope_metrics import ToolEnvelopeMetrics
        from ..models.tool_exit import ToolExit

        d = dict(src_dict)
        actions = []
        _actions = d.pop("actions")
        for actions_item_data in _actions:
            actions_item = ActionRequest.from_dict(actions_item_data)

            actions.append(actions_item)

        artifacts = []
        _artifacts = d.pop("artifacts")
        for artifacts_item_data in _artifacts:
            artifacts_item = ArtifactCheck.from_dict(artifacts_item_data)

            artifacts.append(artifacts_item)

        def _parse_class_(data: object) -> None | ToolErrorClass:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                class_type_0 = check_tool_error_class(data)

                return class_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ToolErrorClass, data)

        class_ = _parse_class_(d.pop("class"))

        def _parse_code(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        code = _parse_code(d.pop("code"))

        def _parse_cpu_ms(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        cpu_ms = _parse_cpu_ms(d.pop("cpu_ms"))

        duration_ms = d.pop("duration_ms")

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        exit_code = d.pop("exit_code")

        def _parse_hint(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        hint = _parse_hint(d.pop("hint"))

        def _parse_limits(data: object) -> LimitsReport | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                limits_type_0 = LimitsReport.from_dict(data)

                return limits_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LimitsReport | None, data)

        limits = _parse_limits(d.pop("limits"))

        def _parse_max_rss_kib(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        max_rss_kib = _parse_max_rss_kib(d.pop("max_rss_kib"))

        metrics = ToolEnvelopeMetrics.from_dict(d.pop("metrics"))

        def _parse_parent_run_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        parent_run_id = _parse_parent_run_id(d.pop("parent_run_id"))

        def _parse_resumed_from(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        resumed_from = _parse_resumed_from(d.pop("resumed_from"))

        retryable = d.pop("retryable")

        run_id = d.pop("run_id")

        status = check_tool_status(d.pop("status"))

        def _parse_stderr_tail(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        stderr_tail = _parse_stderr_tail(d.pop("stderr_tail"))

        tool = d.pop("tool")

        def _parse_tool_exit(data: object) -> None | ToolExit:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tool_exit_type_0 = ToolExit.from_dict(data)

                return tool_exit_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ToolExit, data)

        tool_exit = _parse_tool_exit(d.pop("tool_exit"))

        version = d.pop("version")

        warnings = cast(list[str], d.pop("warnings"))

        def _parse_workspace(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        workspace = _parse_workspace(d.pop("workspace"))

        tool_envelope = cls(
            actions=actions,
            artifacts=artifacts,
            class_=class_,
            code=code,
            cpu_ms=cpu_ms,
            duration_ms=duration_ms,
            error=error,
            exit_code=exit_code,
            hint=hint,
            limits=limits,
            max_rss_kib=max_rss_kib,
            metrics=metrics,
            parent_run_id=parent_run_id,
            resumed_from=resumed_from,
            retryable=retryable,
            run_id=run_id,
            status=status,
            stderr_tail=stderr_tail,
            tool=tool,
            tool_exit=tool_exit,
            version=version,
            warnings=warnings,
            workspace=workspace,
        )

        tool_envelope.additional_properties = d
        return tool_envelope

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
