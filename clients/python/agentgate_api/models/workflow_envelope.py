from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.workflow_state import WorkflowState, check_workflow_state

if TYPE_CHECKING:
    from ..models.step_report import StepReport
    from ..models.workflow_envelope_outputs import WorkflowEnvelopeOutputs


T = TypeVar("T", bound="WorkflowEnvelope")


@_attrs_define
class WorkflowEnvelope:
    """The result of a workflow run, in its envelope's `workflow`.

    Attributes:
        executions (int): How many executions the run took (1 + the resumes).
        failed_step (None | str): The step whose failure failed the workflow.
        name (str): The workflow's name.
        outputs (WorkflowEnvelopeOutputs): The workflow's `outputs`, rendered (on `completed`).
        state (WorkflowState): Where a workflow is in its life (seed 002's run state machine):
            `queued → running → (waiting_ai → running)* → completed | failed |
            cancelled`.

            - `queued`: Submitted to a server, not started (the job's state).
            - `running`: Running its steps.
            - `waiting_ai`: An agent is answering a tool's `action_required` (a decision step).
            - `completed`: Every step ended `ok` or `skipped`.
            - `failed`: A step failed (after its retries).
            - `cancelled`: Cancelled; every running step was cancelled with it.
        steps (list[StepReport]): Every step, in file order (a group before its members).
    """

    executions: int
    failed_step: None | str
    name: str
    outputs: WorkflowEnvelopeOutputs
    state: WorkflowState
    steps: list[StepReport]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        executions = self.executions

        failed_step: None | str
        failed_step = self.failed_step

        name = self.name

        outputs = self.outputs.to_dict()

        state: str = self.state

        steps = []
        for steps_item_data in self.steps:
            steps_item = steps_item_data.to_dict()
            steps.append(steps_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "executions": executions,
                "failed_step": failed_step,
                "name": name,
                "outputs": outputs,
                "state": state,
                "steps": steps,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.step_report import StepReport
        from ..models.workflow_envelope_outputs import WorkflowEnvelopeOutputs

        d = dict(src_dict)
        executions = d.pop("executions")

        def _parse_failed_step(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        failed_step = _parse_failed_step(d.pop("failed_step"))

        name = d.pop("name")

        outputs = WorkflowEnvelopeOutputs.from_dict(d.pop("outputs"))

        state = check_workflow_state(d.pop("state"))

        steps = []
        _steps = d.pop("steps")
        for steps_item_data in _steps:
            steps_item = StepReport.from_dict(steps_item_data)

            steps.append(steps_item)

        workflow_envelope = cls(
            executions=executions,
            failed_step=failed_step,
            name=name,
            outputs=outputs,
            state=state,
            steps=steps,
        )

        workflow_envelope.additional_properties = d
        return workflow_envelope

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
