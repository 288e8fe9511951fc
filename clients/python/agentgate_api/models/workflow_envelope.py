from __future__ import annotations

from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

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
        state (Literal['cancelled'] | Literal['completed'] | Literal['failed'] | Literal['queued'] | Literal['running']
            | Literal['waiting_ai']): Where a workflow is in its life (seed 002's run state machine):
            `queued → running → (waiting_ai → running)* → completed | failed |
            cancelled`.
        steps (list[StepReport]): Every step, in file order (a group before its members).
    """

    executions: int
    failed_step: None | str
    name: str
    outputs: WorkflowEnvelopeOutputs
    state: Literal[
        "cancelled", "completed", "failed", "queued", "running", "waiting_ai"
    ]
    steps: list[StepReport]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        executions = self.executions

        failed_step: None | str
        failed_step = self.failed_step

        name = self.name

        outputs = self.outputs.to_dict()

        state: Literal[
            "cancelled", "completed", "failed", "queued", "running", "waiting_ai"
        ]
        state = self.state

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

        def _parse_state(
            data: object,
        ) -> Literal[
            "cancelled", "completed", "failed", "queued", "running", "waiting_ai"
        ]:
            componentsschemas_workflow_state_type_0 = cast(Literal["queued"], data)
            if componentsschemas_workflow_state_type_0 != "queued":
                raise ValueError(
                    f"/components/schemas/WorkflowState_type_0 must match const 'queued', got '{componentsschemas_workflow_state_type_0}'"
                )
            return componentsschemas_workflow_state_type_0
            componentsschemas_workflow_state_type_1 = cast(Literal["running"], data)
            if componentsschemas_workflow_state_type_1 != "running":
                raise ValueError(
                    f"/components/schemas/WorkflowState_type_1 must match const 'running', got '{componentsschemas_workflow_state_type_1}'"
                )
            return componentsschemas_workflow_state_type_1
            componentsschemas_workflow_state_type_2 = cast(Literal["waiting_ai"], data)
            if componentsschemas_workflow_state_type_2 != "waiting_ai":
                raise ValueError(
                    f"/components/schemas/WorkflowState_type_2 must match const 'waiting_ai', got '{componentsschemas_workflow_state_type_2}'"
                )
            return componentsschemas_workflow_state_type_2
            componentsschemas_workflow_state_type_3 = cast(Literal["completed"], data)
            if componentsschemas_workflow_state_type_3 != "completed":
                raise ValueError(
                    f"/components/schemas/WorkflowState_type_3 must match const 'completed', got '{componentsschemas_workflow_state_type_3}'"
                )
            return componentsschemas_workflow_state_type_3
            componentsschemas_workflow_state_type_4 = cast(Literal["failed"], data)
            if componentsschemas_workflow_state_type_4 != "failed":
                raise ValueError(
                    f"/components/schemas/WorkflowState_type_4 must match const 'failed', got '{componentsschemas_workflow_state_type_4}'"
                )
            return componentsschemas_workflow_state_type_4
            componentsschemas_workflow_state_type_5 = cast(Literal["cancelled"], data)
            if componentsschemas_workflow_state_type_5 != "cancelled":
                raise ValueError(
                    f"/components/schemas/WorkflowState_type_5 must match const 'cancelled', got '{componentsschemas_workflow_state_type_5}'"
                )
            return componentsschemas_workflow_state_type_5

        state = _parse_state(d.pop("state"))

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
