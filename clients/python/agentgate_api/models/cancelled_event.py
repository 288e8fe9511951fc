from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="CancelledEvent")


@_attrs_define
class CancelledEvent:
    """Body of `cancelled`: the run was cancelled and its agent stopped.

    Attributes:
        reason (Literal['request'] | Literal['shutdown'] | Literal['signal']): Why a run was cancelled.
        signal (None | str | Unset): The signal's name (`SIGINT`, `SIGTERM`) when `reason` is `signal`.
    """

    reason: Literal["request", "shutdown", "signal"]
    signal: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        reason: Literal["request", "shutdown", "signal"]
        reason = self.reason

        signal: None | str | Unset
        if isinstance(self.signal, Unset):
            signal = UNSET
        else:
            signal = self.signal

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "reason": reason,
            }
        )
        if signal is not UNSET:
            field_dict["signal"] = signal

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_reason(data: object) -> Literal["request", "shutdown", "signal"]:
            componentsschemas_cancel_reason_type_0 = cast(Literal["signal"], data)
            if componentsschemas_cancel_reason_type_0 != "signal":
                raise ValueError(
                    f"/components/schemas/CancelReason_type_0 must match const 'signal', got '{componentsschemas_cancel_reason_type_0}'"
                )
            return componentsschemas_cancel_reason_type_0
            componentsschemas_cancel_reason_type_1 = cast(Literal["request"], data)
            if componentsschemas_cancel_reason_type_1 != "request":
                raise ValueError(
                    f"/components/schemas/CancelReason_type_1 must match const 'request', got '{componentsschemas_cancel_reason_type_1}'"
                )
            return componentsschemas_cancel_reason_type_1
            componentsschemas_cancel_reason_type_2 = cast(Literal["shutdown"], data)
            if componentsschemas_cancel_reason_type_2 != "shutdown":
                raise ValueError(
                    f"/components/schemas/CancelReason_type_2 must match const 'shutdown', got '{componentsschemas_cancel_reason_type_2}'"
                )
            return componentsschemas_cancel_reason_type_2

        reason = _parse_reason(d.pop("reason"))

        def _parse_signal(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        signal = _parse_signal(d.pop("signal", UNSET))

        cancelled_event = cls(
            reason=reason,
            signal=signal,
        )

        cancelled_event.additional_properties = d
        return cancelled_event

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
