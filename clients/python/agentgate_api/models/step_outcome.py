from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="StepOutcome")


@_attrs_define
class StepOutcome:
    """What a step produced: what `${steps.ID.…}` reads.

    Attributes:
        output (Any): The step's output: a tool's `metrics`, an agent's structured output
            (else its text), a decision's answer `{choice, reason}`, a group's
            members' outputs by id; `null` if none.
        result (Any): The step's result: a tool's result envelope, an agent run's
            envelope, a decision's answering tool run; `null` if none.
        action (Any | Unset): The decision a tool asked for (`{action, context}`), if it asked.
        run_id (None | str | Unset): The run that produced `result`, if one did.
    """

    output: Any
    result: Any
    action: Any | Unset = UNSET
    run_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        output = self.output

        result = self.result

        action = self.action

        run_id: None | str | Unset
        if isinstance(self.run_id, Unset):
            run_id = UNSET
        else:
            run_id = self.run_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "output": output,
                "result": result,
            }
        )
        if action is not UNSET:
            field_dict["action"] = action
        if run_id is not UNSET:
            field_dict["run_id"] = run_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        output = d.pop("output")

        result = d.pop("result")

        action = d.pop("action", UNSET)

        def _parse_run_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        run_id = _parse_run_id(d.pop("run_id", UNSET))

        step_outcome = cls(
            output=output,
            result=result,
            action=action,
            run_id=run_id,
        )

        step_outcome.additional_properties = d
        return step_outcome

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
