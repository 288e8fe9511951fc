from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.step_status import StepStatus, check_step_status
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.step_outcome import StepOutcome


T = TypeVar("T", bound="TaskDoneEvent")


@_attrs_define
class TaskDoneEvent:
    """Body of `task_done`: a step ended. Its outcome is the checkpoint a
    resume reads back.

        Attributes:
            attempts (int): How many tries it took (0 when skipped).
            child_run_ids (list[str]): Every run it made, in order.
            outcome (StepOutcome): What a step produced: what `${steps.ID.…}` reads.
            status (StepStatus): How a step ended.

                - `ok`: It succeeded.
                - `failed`: It failed (after its retries).
                - `skipped`: Its `when:` was false, or a decision had nothing to answer.
                - `cancelled`: The workflow was cancelled (or a `fail_fast` group stopped it).
            task_id (str): The step's id.
            reason (None | str | Unset): Why it was skipped, failed or cancelled.
    """

    attempts: int
    child_run_ids: list[str]
    outcome: StepOutcome
    status: StepStatus
    task_id: str
    reason: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempts = self.attempts

        child_run_ids = self.child_run_ids

        outcome = self.outcome.to_dict()

        status: str = self.status

        task_id = self.task_id

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "child_run_ids": child_run_ids,
                "outcome": outcome,
                "status": status,
                "task_id": task_id,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.step_outcome import StepOutcome

        d = dict(src_dict)
        attempts = d.pop("attempts")

        child_run_ids = cast(list[str], d.pop("child_run_ids"))

        outcome = StepOutcome.from_dict(d.pop("outcome"))

        status = check_step_status(d.pop("status"))

        task_id = d.pop("task_id")

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        task_done_event = cls(
            attempts=attempts,
            child_run_ids=child_run_ids,
            outcome=outcome,
            status=status,
            task_id=task_id,
            reason=reason,
        )

        task_done_event.additional_properties = d
        return task_done_event

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
