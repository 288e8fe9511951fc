from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.step_status import StepStatus, check_step_status

T = TypeVar("T", bound="StepReport")


@_attrs_define
class StepReport:
    """One step in a workflow's result.

    Attributes:
        attempts (int): Tries, over every execution.
        execution (int | None): The execution that finished it (1 unless the workflow was resumed).
        group (None | str): The `parallel` group it belongs to, if any.
        id (str): The step's id.
        kind (str): `tool`, `agent`, `parallel` or `decision`.
        reason (None | str): Why it was skipped, failed or cancelled.
        run_ids (list[str]): Every run it made, in order.
        status (None | StepStatus): How it ended; `null` if it never ran (an earlier step failed).
    """

    attempts: int
    execution: int | None
    group: None | str
    id: str
    kind: str
    reason: None | str
    run_ids: list[str]
    status: None | StepStatus
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempts = self.attempts

        execution: int | None
        execution = self.execution

        group: None | str
        group = self.group

        id = self.id

        kind = self.kind

        reason: None | str
        reason = self.reason

        run_ids = self.run_ids

        status: None | str
        if isinstance(self.status, str):
            status = self.status
        else:
            status = self.status

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "execution": execution,
                "group": group,
                "id": id,
                "kind": kind,
                "reason": reason,
                "run_ids": run_ids,
                "status": status,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        attempts = d.pop("attempts")

        def _parse_execution(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        execution = _parse_execution(d.pop("execution"))

        def _parse_group(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        group = _parse_group(d.pop("group"))

        id = d.pop("id")

        kind = d.pop("kind")

        def _parse_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason = _parse_reason(d.pop("reason"))

        run_ids = cast(list[str], d.pop("run_ids"))

        def _parse_status(data: object) -> None | StepStatus:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                status_type_0 = check_step_status(data)

                return status_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | StepStatus, data)

        status = _parse_status(d.pop("status"))

        step_report = cls(
            attempts=attempts,
            execution=execution,
            group=group,
            id=id,
            kind=kind,
            reason=reason,
            run_ids=run_ids,
            status=status,
        )

        step_report.additional_properties = d
        return step_report

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
