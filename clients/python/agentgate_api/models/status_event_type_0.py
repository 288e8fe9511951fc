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

T = TypeVar("T", bound="StatusEventType0")


@_attrs_define
class StatusEventType0:
    """The provider retries a failed request itself.

    Attributes:
        kind (Literal['retry']):
        delay_ms (int | None | Unset): How long the provider waits before this retry, in milliseconds.
        detail (None | str | Unset): The provider's reason, as it gave it.
        max_retries (int | None | Unset): How many retries the provider will make at most.
        provider_status (int | None | Unset): HTTP status of the failed request, if known.
        retry_attempt (int | None | Unset): Which retry this is, from 1 (the provider's count, not agentgate's
            `attempt`).
    """

    kind: Literal["retry"]
    delay_ms: int | None | Unset = UNSET
    detail: None | str | Unset = UNSET
    max_retries: int | None | Unset = UNSET
    provider_status: int | None | Unset = UNSET
    retry_attempt: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind

        delay_ms: int | None | Unset
        if isinstance(self.delay_ms, Unset):
            delay_ms = UNSET
        else:
            delay_ms = self.delay_ms

        detail: None | str | Unset
        if isinstance(self.detail, Unset):
            detail = UNSET
        else:
            detail = self.detail

        max_retries: int | None | Unset
        if isinstance(self.max_retries, Unset):
            max_retries = UNSET
        else:
            max_retries = self.max_retries

        provider_status: int | None | Unset
        if isinstance(self.provider_status, Unset):
            provider_status = UNSET
        else:
            provider_status = self.provider_status

        retry_attempt: int | None | Unset
        if isinstance(self.retry_attempt, Unset):
            retry_attempt = UNSET
        else:
            retry_attempt = self.retry_attempt

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kind": kind,
            }
        )
        if delay_ms is not UNSET:
            field_dict["delay_ms"] = delay_ms
        if detail is not UNSET:
            field_dict["detail"] = detail
        if max_retries is not UNSET:
            field_dict["max_retries"] = max_retries
        if provider_status is not UNSET:
            field_dict["provider_status"] = provider_status
        if retry_attempt is not UNSET:
            field_dict["retry_attempt"] = retry_attempt

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kind = cast(Literal["retry"], d.pop("kind"))
        if kind != "retry":
            raise ValueError(f"kind must match const 'retry', got '{kind}'")

        def _parse_delay_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        delay_ms = _parse_delay_ms(d.pop("delay_ms", UNSET))

        def _parse_detail(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        detail = _parse_detail(d.pop("detail", UNSET))

        def _parse_max_retries(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_retries = _parse_max_retries(d.pop("max_retries", UNSET))

        def _parse_provider_status(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        provider_status = _parse_provider_status(d.pop("provider_status", UNSET))

        def _parse_retry_attempt(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        retry_attempt = _parse_retry_attempt(d.pop("retry_attempt", UNSET))

        status_event_type_0 = cls(
            kind=kind,
            delay_ms=delay_ms,
            detail=detail,
            max_retries=max_retries,
            provider_status=provider_status,
            retry_attempt=retry_attempt,
        )

        status_event_type_0.additional_properties = d
        return status_event_type_0

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
