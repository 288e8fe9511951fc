from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.quota_window import QuotaWindow


T = TypeVar("T", bound="ProviderQuota")


@_attrs_define
class ProviderQuota:
    """One provider's quota.

    Attributes:
        provider (str): The provider.
        status (str): `unknown` (never seen), `available`, `warning`, `exhausted`, `held`
            (a window the gateway read is used above `gateway.quota_hold_above`:
            runs skip the provider and queued jobs wait until `reset_at`, as for
            `exhausted`), or `available_again` (a warning, exhaustion or hold
            whose reset time passed).
        windows (list[QuotaWindow]): The rate-limit windows the model gateway last read off the wire for
            this provider (and account); empty when none was seen.
        account (None | str | Unset): The account the state belongs to (`account:` in the config, or
            `AGENTGATE_<PROVIDER>_ACCOUNT`); null: the provider's unnamed
            account, shared by every host that names none.
        message (None | str | Unset): The provider's message, if any; for a state read off the wire, the
            window that set it (`window 5h at 100%, resets …`, `held: window 5h
            at 97% (quota_hold_above 0.95), resets …`).
        reset_at (None | str | Unset): When the limit resets (RFC 3339), if known.
        reset_in_seconds (int | None | Unset): Seconds until `reset_at` from now; 0 once it passed.
        run_id (None | str | Unset): The run that set the state.
        source (None | str | Unset): What set the state: `error:<run_id>`, `event:<run_id>` (a
            `rate_limit` event), `success:<run_id>` or `wire:<run_id>` (a model
            call the run's gateway saw).
        stored_status (None | str | Unset): The status as stored, before the reset time is taken into account:
            `available`, `warning`, `exhausted` or `held`; null when never seen.
        updated_at (None | str | Unset): When the state was stored (RFC 3339).
    """

    provider: str
    status: str
    windows: list[QuotaWindow]
    account: None | str | Unset = UNSET
    message: None | str | Unset = UNSET
    reset_at: None | str | Unset = UNSET
    reset_in_seconds: int | None | Unset = UNSET
    run_id: None | str | Unset = UNSET
    source: None | str | Unset = UNSET
    stored_status: None | str | Unset = UNSET
    updated_at: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        provider = self.provider

        status = self.status

        windows = []
        for windows_item_data in self.windows:
            windows_item = windows_item_data.to_dict()
            windows.append(windows_item)

        account: None | str | Unset
        if isinstance(self.account, Unset):
            account = UNSET
        else:
            account = self.account

        message: None | str | Unset
        if isinstance(self.message, Unset):
            message = UNSET
        else:
            message = self.message

        reset_at: None | str | Unset
        if isinstance(self.reset_at, Unset):
            reset_at = UNSET
        else:
            reset_at = self.reset_at

        reset_in_seconds: int | None | Unset
        if isinstance(self.reset_in_seconds, Unset):
            reset_in_seconds = UNSET
        else:
            reset_in_seconds = self.reset_in_seconds

        run_id: None | str | Unset
        if isinstance(self.run_id, Unset):
            run_id = UNSET
        else:
            run_id = self.run_id

        source: None | str | Unset
        if isinstance(self.source, Unset):
            source = UNSET
        else:
            source = self.source

        stored_status: None | str | Unset
        if isinstance(self.stored_status, Unset):
            stored_status = UNSET
        else:
            stored_status = self.stored_status

        updated_at: None | str | Unset
        if isinstance(self.updated_at, Unset):
            updated_at = UNSET
        else:
            updated_at = self.updated_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "provider": provider,
                "status": status,
                "windows": windows,
            }
        )
        if account is not UNSET:
            field_dict["account"] = account
        if message is not UNSET:
            field_dict["message"] = message
        if reset_at is not UNSET:
            field_dict["reset_at"] = reset_at
        if reset_in_seconds is not UNSET:
            field_dict["reset_in_seconds"] = reset_in_seconds
        if run_id is not UNSET:
            field_dict["run_id"] = run_id
        if source is not UNSET:
            field_dict["source"] = source
        if stored_status is not UNSET:
            field_dict["stored_status"] = stored_status
        if updated_at is not UNSET:
            field_dict["updated_at"] = updated_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.quota_window import QuotaWindow

        d = dict(src_dict)
        provider = d.pop("provider")

        status = d.pop("status")

        windows = []
        _windows = d.pop("windows")
        for windows_item_data in _windows:
            windows_item = QuotaWindow.from_dict(windows_item_data)

            windows.append(windows_item)

        def _parse_account(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        account = _parse_account(d.pop("account", UNSET))

        def _parse_message(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        message = _parse_message(d.pop("message", UNSET))

        def _parse_reset_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reset_at = _parse_reset_at(d.pop("reset_at", UNSET))

        def _parse_reset_in_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        reset_in_seconds = _parse_reset_in_seconds(d.pop("reset_in_seconds", UNSET))

        def _parse_run_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        run_id = _parse_run_id(d.pop("run_id", UNSET))

        def _parse_source(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source = _parse_source(d.pop("source", UNSET))

        def _parse_stored_status(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        stored_status = _parse_stored_status(d.pop("stored_status", UNSET))

        def _parse_updated_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        updated_at = _parse_updated_at(d.pop("updated_at", UNSET))

        provider_quota = cls(
            provider=provider,
            status=status,
            windows=windows,
            account=account,
            message=message,
            reset_at=reset_at,
            reset_in_seconds=reset_in_seconds,
            run_id=run_id,
            source=source,
            stored_status=stored_status,
            updated_at=updated_at,
        )

        provider_quota.additional_properties = d
        return provider_quota

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
