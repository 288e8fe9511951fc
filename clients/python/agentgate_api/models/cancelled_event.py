from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.cancel_reason import CancelReason, check_cancel_reason
from ..types import UNSET, Unset

T = TypeVar("T", bound="CancelledEvent")


@_attrs_define
class CancelledEvent:
    """Body of `cancelled`: the run was cancelled and its agent stopped.

    Attributes:
        reason (CancelReason): Why a run was cancelled.

            - `signal`: agentgate received a signal (see `signal`).
            - `request`: The caller asked for it through the library or the API.
            - `shutdown`: agentgate (a worker, the server) is shutting down.
        signal (None | str | Unset): The signal's name (`SIGINT`, `SIGTERM`) when `reason` is `signal`.
    """

    reason: CancelReason
    signal: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        reason: str = self.reason

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
        reason = check_cancel_reason(d.pop("reason"))

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
