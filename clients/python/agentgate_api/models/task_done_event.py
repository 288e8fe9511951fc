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
            status (Literal['cancelled'] | Literal['failed'] | Literal['ok'] | Literal['skipped']): How a step ended.
            task_id (str): The step's id.
            reason (None | str | Unset): Why it was skipped, failed or cancelled.
    """

    attempts: int
    child_run_ids: list[str]
    outcome: StepOutcome
    status: Literal["cancelled", "failed", "ok", "skipped"]
    task_id: str
    reason: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempts = self.attempts

        child_run_ids = self.child_run_ids

        outcome = self.outcome.to_dict()

        status: Literal["cancelled", "failed", "ok", "skipped"]
        status = self.status

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

        def _parse_status(
            data: object,
        ) -> Literal["cancelled", "failed", "ok", "skipped"]:
            componentsschemas_step_status_type_0 = cast(Literal["ok"], data)
            if componentsschemas_step_status_type_0 != "ok":
                raise ValueError(
                    f"/components/schemas/StepStatus_type_0 must match const 'ok', got '{componentsschemas_step_status_type_0}'"
                )
            return componentsschemas_step_status_type_0
            componentsschemas_step_status_type_1 = cast(Literal["failed"], data)
            if componentsschemas_step_status_type_1 != "failed":
                raise ValueError(
                    f"/components/schemas/StepStatus_type_1 must match const 'failed', got '{componentsschemas_step_status_type_1}'"
                )
            return componentsschemas_step_status_type_1
            componentsschemas_step_status_type_2 = cast(Literal["skipped"], data)
            if componentsschemas_step_status_type_2 != "skipped":
                raise ValueError(
                    f"/components/schemas/StepStatus_type_2 must match const 'skipped', got '{componentsschemas_step_status_type_2}'"
                )
            return componentsschemas_step_status_type_2
            componentsschemas_step_status_type_3 = cast(Literal["cancelled"], data)
            if componentsschemas_step_status_type_3 != "cancelled":
                raise ValueError(
                    f"/components/schemas/StepStatus_type_3 must match const 'cancelled', got '{componentsschemas_step_status_type_3}'"
                )
            return componentsschemas_step_status_type_3

        status = _parse_status(d.pop("status"))

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
