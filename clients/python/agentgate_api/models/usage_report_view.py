from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.usage_figures_view import UsageFiguresView
    from ..models.usage_row_view import UsageRowView


T = TypeVar("T", bound="UsageReportView")


@_attrs_define
class UsageReportView:
    """A usage report: agent runs that started in `[since, until)`.

    Attributes:
        by (str): The bucket: day, week or month.
        rows (list[UsageRowView]): The rows, by bucket then group value (null last).
        since (datetime.datetime): The first instant covered (RFC 3339).
        totals (UsageFiguresView): The figures of a set of runs.
        until (datetime.datetime): The first instant not covered (RFC 3339).
        group (None | str | Unset): The dimension; null without one.
    """

    by: str
    rows: list[UsageRowView]
    since: datetime.datetime
    totals: UsageFiguresView
    until: datetime.datetime
    group: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        by = self.by

        rows = []
        for rows_item_data in self.rows:
            rows_item = rows_item_data.to_dict()
            rows.append(rows_item)

        since = self.since.isoformat()

        totals = self.totals.to_dict()

        until = self.until.isoformat()

        group: None | str | Unset
        if isinstance(self.group, Unset):
            group = UNSET
        else:
            group = self.group

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "by": by,
                "rows": rows,
                "since": since,
                "totals": totals,
                "until": until,
            }
        )
        if group is not UNSET:
            field_dict["group"] = group

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.usage_figures_view import UsageFiguresView
        from ..models.usage_row_view import UsageRowView

        d = dict(src_dict)
        by = d.pop("by")

        rows = []
        _rows = d.pop("rows")
        for rows_item_data in _rows:
            rows_item = UsageRowView.from_dict(rows_item_data)

            rows.append(rows_item)

        since = datetime.datetime.fromisoformat(d.pop("since"))

        totals = UsageFiguresView.from_dict(d.pop("totals"))

        until = datetime.datetime.fromisoformat(d.pop("until"))

        def _parse_group(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        group = _parse_group(d.pop("group", UNSET))

        usage_report_view = cls(
            by=by,
            rows=rows,
            since=since,
            totals=totals,
            until=until,
            group=group,
        )

        usage_report_view.additional_properties = d
        return usage_report_view

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
