from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.envelope import Envelope


T = TypeVar("T", bound="StreamEnd")


@_attrs_define
class StreamEnd:
    """The last message of an event stream for a run that ended without a
    `result` event (cancelled while queued, abandoned, or its process died
    mid-run): SSE `event: end`.

        Attributes:
            run_id (str): The run.
            status (str): How it ended: a final state of a run (`cancelled`, `abandoned`,
                `failed`, `succeeded`).
            envelope (Envelope | None | Unset):
            error (None | str | Unset): The error it ended with, if any.
    """

    run_id: str
    status: str
    envelope: Envelope | None | Unset = UNSET
    error: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.envelope import Envelope

        run_id = self.run_id

        status = self.status

        envelope: dict[str, Any] | None | Unset
        if isinstance(self.envelope, Unset):
            envelope = UNSET
        elif isinstance(self.envelope, Envelope):
            envelope = self.envelope.to_dict()
        else:
            envelope = self.envelope

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "run_id": run_id,
                "status": status,
            }
        )
        if envelope is not UNSET:
            field_dict["envelope"] = envelope
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.envelope import Envelope

        d = dict(src_dict)
        run_id = d.pop("run_id")

        status = d.pop("status")

        def _parse_envelope(data: object) -> Envelope | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                envelope_type_1 = Envelope.from_dict(data)

                return envelope_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Envelope | None | Unset, data)

        envelope = _parse_envelope(d.pop("envelope", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        stream_end = cls(
            run_id=run_id,
            status=status,
            envelope=envelope,
            error=error,
        )

        stream_end.additional_properties = d
        return stream_end

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
