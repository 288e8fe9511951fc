from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TaskErrorEvent")


@_attrs_define
class TaskErrorEvent:
    """Body of `task_error`: one try of a step failed.

    Attributes:
        message (str): What went wrong.
        retryable (bool): Whether a retry may help.
        step_attempt (int): The try, from 1 (not `attempt`: that is the event header's provider
            attempt).
        task_id (str): The step's id.
        child_run_id (None | str | Unset): The run of that try, if it was one.
        code (None | str | Unset): The error: a tool's code (`E_TRANSIENT_NET`) or an agent's error
            type (`rate_limit`).
        retry_in_ms (int | None | Unset): The wait before the next try, when there is one.
    """

    message: str
    retryable: bool
    step_attempt: int
    task_id: str
    child_run_id: None | str | Unset = UNSET
    code: None | str | Unset = UNSET
    retry_in_ms: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message = self.message

        retryable = self.retryable

        step_attempt = self.step_attempt

        task_id = self.task_id

        child_run_id: None | str | Unset
        if isinstance(self.child_run_id, Unset):
            child_run_id = UNSET
        else:
            child_run_id = self.child_run_id

        code: None | str | Unset
        if isinstance(self.code, Unset):
            code = UNSET
        else:
            code = self.code

        retry_in_ms: int | None | Unset
        if isinstance(self.retry_in_ms, Unset):
            retry_in_ms = UNSET
        else:
            retry_in_ms = self.retry_in_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message": message,
                "retryable": retryable,
                "step_attempt": step_attempt,
                "task_id": task_id,
            }
        )
        if child_run_id is not UNSET:
            field_dict["child_run_id"] = child_run_id
        if code is not UNSET:
            field_dict["code"] = code
        if retry_in_ms is not UNSET:
            field_dict["retry_in_ms"] = retry_in_ms

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        message = d.pop("message")

        retryable = d.pop("retryable")

        step_attempt = d.pop("step_attempt")

        task_id = d.pop("task_id")

        def _parse_child_run_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        child_run_id = _parse_child_run_id(d.pop("child_run_id", UNSET))

        def _parse_code(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        code = _parse_code(d.pop("code", UNSET))

        def _parse_retry_in_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        retry_in_ms = _parse_retry_in_ms(d.pop("retry_in_ms", UNSET))

        task_error_event = cls(
            message=message,
            retryable=retryable,
            step_attempt=step_attempt,
            task_id=task_id,
            child_run_id=child_run_id,
            code=code,
            retry_in_ms=retry_in_ms,
        )

        task_error_event.additional_properties = d
        return task_error_event

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
