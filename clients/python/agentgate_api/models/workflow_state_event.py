from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.workflow_state import WorkflowState, check_workflow_state
from ..types import UNSET, Unset

T = TypeVar("T", bound="WorkflowStateEvent")


@_attrs_define
class WorkflowStateEvent:
    """Body of `workflow_state`: the workflow changed state. The first one of
    a run carries the workflow (its definition, input and folder), which is
    what a resume runs again.

        Attributes:
            state (WorkflowState): Where a workflow is in its life (seed 002's run state machine):
                `queued → running → (waiting_ai → running)* → completed | failed |
                cancelled`.

                - `queued`: Submitted to a server, not started (the job's state).
                - `running`: Running its steps.
                - `waiting_ai`: An agent is answering a tool's `action_required` (a decision step).
                - `completed`: Every step ended `ok` or `skipped`.
                - `failed`: A step failed (after its retries).
                - `cancelled`: Cancelled; every running step was cancelled with it.
            base_dir (None | str | Unset): The folder relative paths of the workflow are resolved against, on
                the run's first event.
            definition (Any | Unset): The workflow file as read (JSON), on the run's first event.
            execution (int | None | Unset): Which execution of the run this is: 1, then 2 after the first resume.
            input_ (Any | Unset): The workflow's input, on the run's first event.
            name (None | str | Unset): The workflow's name.
            reason (None | str | Unset): Why (a failure, a cancel, a resume).
            step (None | str | Unset): The step the state is about (`waiting_ai`: the decision).
    """

    state: WorkflowState
    base_dir: None | str | Unset = UNSET
    definition: Any | Unset = UNSET
    execution: int | None | Unset = UNSET
    input_: Any | Unset = UNSET
    name: None | str | Unset = UNSET
    reason: None | str | Unset = UNSET
    step: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        state: str = self.state

        base_dir: None | str | Unset
        if isinstance(self.base_dir, Unset):
            base_dir = UNSET
        else:
            base_dir = self.base_dir

        definition = self.definition

        execution: int | None | Unset
        if isinstance(self.execution, Unset):
            execution = UNSET
        else:
            execution = self.execution

        input_ = self.input_

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        step: None | str | Unset
        if isinstance(self.step, Unset):
            step = UNSET
        else:
            step = self.step

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "state": state,
            }
        )
        if base_dir is not UNSET:
            field_dict["base_dir"] = base_dir
        if definition is not UNSET:
            field_dict["definition"] = definition
        if execution is not UNSET:
            field_dict["execution"] = execution
        if input_ is not UNSET:
            field_dict["input"] = input_
        if name is not UNSET:
            field_dict["name"] = name
        if reason is not UNSET:
            field_dict["reason"] = reason
        if step is not UNSET:
            field_dict["step"] = step

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        state = check_workflow_state(d.pop("state"))

        def _parse_base_dir(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        base_dir = _parse_base_dir(d.pop("base_dir", UNSET))

        definition = d.pop("definition", UNSET)

        def _parse_execution(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        execution = _parse_execution(d.pop("execution", UNSET))

        input_ = d.pop("input", UNSET)

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        def _parse_step(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        step = _parse_step(d.pop("step", UNSET))

        workflow_state_event = cls(
            state=state,
            base_dir=base_dir,
            definition=definition,
            execution=execution,
            input_=input_,
            name=name,
            reason=reason,
            step=step,
        )

        workflow_state_event.additional_properties = d
        return workflow_state_event

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
