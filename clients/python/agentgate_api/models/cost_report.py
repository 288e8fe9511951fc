from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.cost_source import CostSource, check_cost_source
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.attempt_cost import AttemptCost
    from ..models.cost_card_entry import CostCardEntry


T = TypeVar("T", bound="CostReport")


@_attrs_define
class CostReport:
    """How a run's (or one attempt's) cost was worked out.

    `usd` is the envelope's `tokens_used.cost_usd`: the card's figure when
    the card prices the model, else the CLI's, else `null` (never a guess;
    `reason` then says why).

        Attributes:
            card (CostCardEntry | None): The card entry that priced the tokens (the last attempt's, when
                several were priced).
            card_usd (float | None): The cost from the rate card and the run's tokens; `null` when the
                card does not price the model (see `reason`).
            cli_usd (float | None): The cost the CLI reported itself (Claude Code, opencode); `null`
                when it reported none.
            difference_usd (float | None): `cli_usd - card_usd` when both are known.
            flagged (bool): Whether the difference passes the threshold (`pricing.flag_above`). Default: False.
            source (CostSource | None): Where `usd` comes from; `null` when it is unknown.
            usd (float | None): The cost in US dollars; `null` when unknown.
            attempts (list[AttemptCost] | Unset): One report per attempt that ran, when the run made more than one
                (a failover, a retry): the run's figures are their sums.
            notes (list[str] | Unset): What the figure assumes (e.g. every cache write priced at the
                5-minute rate).
            reason (None | str | Unset): Why `card_usd` (or `usd`) is unknown, when it is.
    """

    card: CostCardEntry | None
    card_usd: float | None
    cli_usd: float | None
    difference_usd: float | None
    source: CostSource | None
    usd: float | None
    flagged: bool = False
    attempts: list[AttemptCost] | Unset = UNSET
    notes: list[str] | Unset = UNSET
    reason: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.cost_card_entry import CostCardEntry

        card: dict[str, Any] | None
        if isinstance(self.card, CostCardEntry):
            card = self.card.to_dict()
        else:
            card = self.card

        card_usd: float | None
        card_usd = self.card_usd

        cli_usd: float | None
        cli_usd = self.cli_usd

        difference_usd: float | None
        difference_usd = self.difference_usd

        flagged = self.flagged

        source: None | str
        if isinstance(self.source, str):
            source = self.source
        else:
            source = self.source

        usd: float | None
        usd = self.usd

        attempts: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.attempts, Unset):
            attempts = []
            for attempts_item_data in self.attempts:
                attempts_item = attempts_item_data.to_dict()
                attempts.append(attempts_item)

        notes: list[str] | Unset = UNSET
        if not isinstance(self.notes, Unset):
            notes = self.notes

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "card": card,
                "card_usd": card_usd,
                "cli_usd": cli_usd,
                "difference_usd": difference_usd,
                "flagged": flagged,
                "source": source,
                "usd": usd,
            }
        )
        if attempts is not UNSET:
            field_dict["attempts"] = attempts
        if notes is not UNSET:
            field_dict["notes"] = notes
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.attempt_cost import AttemptCost
        from ..models.cost_card_entry import CostCardEntry

        d = dict(src_dict)

        def _parse_card(data: object) -> CostCardEntry | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                card_type_0 = CostCardEntry.from_dict(data)

                return card_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CostCardEntry | None, data)

        card = _parse_card(d.pop("card"))

        def _parse_card_usd(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        card_usd = _parse_card_usd(d.pop("card_usd"))

        def _parse_cli_usd(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        cli_usd = _parse_cli_usd(d.pop("cli_usd"))

        def _parse_difference_usd(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        difference_usd = _parse_difference_usd(d.pop("difference_usd"))

        flagged = d.pop("flagged")

        def _parse_source(data: object) -> CostSource | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                source_type_0 = check_cost_source(data)

                return source_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CostSource | None, data)

        source = _parse_source(d.pop("source"))

        def _parse_usd(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        usd = _parse_usd(d.pop("usd"))

        _attempts = d.pop("attempts", UNSET)
        attempts: list[AttemptCost] | Unset = UNSET
        if _attempts is not UNSET:
            attempts = []
            for attempts_item_data in _attempts:
                attempts_item = AttemptCost.from_dict(attempts_item_data)

                attempts.append(attempts_item)

        notes = cast(list[str], d.pop("notes", UNSET))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        cost_report = cls(
            card=card,
            card_usd=card_usd,
            cli_usd=cli_usd,
            difference_usd=difference_usd,
            flagged=flagged,
            source=source,
            usd=usd,
            attempts=attempts,
            notes=notes,
            reason=reason,
        )

        cost_report.additional_properties = d
        return cost_report

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
