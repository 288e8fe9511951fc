from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.run_view import RunView
    from ..models.unreadable_run import UnreadableRun


T = TypeVar("T", bound="RunPage")


@_attrs_define
class RunPage:
    """One page of `GET /v1/runs`: newest first.

    Attributes:
        runs (list[RunView]): The runs, newest first (by submission time, then id).
        next_cursor (None | str | Unset): Give it back as `cursor` for the next page; null on the last page.
            Runs submitted meanwhile never shift the pages.
        unreadable (list[UnreadableRun] | Unset): The runs of this page that the store holds but cannot read (a
            damaged row), in order, each with why; present only when there
            are some. They take their place in the page (`limit` counts them).
    """

    runs: list[RunView]
    next_cursor: None | str | Unset = UNSET
    unreadable: list[UnreadableRun] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        runs = []
        for runs_item_data in self.runs:
            runs_item = runs_item_data.to_dict()
            runs.append(runs_item)

        next_cursor: None | str | Unset
        if isinstance(self.next_cursor, Unset):
            next_cursor = UNSET
        else:
            next_cursor = self.next_cursor

        unreadable: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.unreadable, Unset):
            unreadable = []
            for unreadable_item_data in self.unreadable:
                unreadable_item = unreadable_item_data.to_dict()
                unreadable.append(unreadable_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "runs": runs,
            }
        )
        if next_cursor is not UNSET:
            field_dict["next_cursor"] = next_cursor
        if unreadable is not UNSET:
            field_dict["unreadable"] = unreadable

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.run_view import RunView
        from ..models.unreadable_run import UnreadableRun

        d = dict(src_dict)
        runs = []
        _runs = d.pop("runs")
        for runs_item_data in _runs:
            runs_item = RunView.from_dict(runs_item_data)

            runs.append(runs_item)

        def _parse_next_cursor(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        next_cursor = _parse_next_cursor(d.pop("next_cursor", UNSET))

        _unreadable = d.pop("unreadable", UNSET)
        unreadable: list[UnreadableRun] | Unset = UNSET
        if _unreadable is not UNSET:
            unreadable = []
            for unreadable_item_data in _unreadable:
                unreadable_item = UnreadableRun.from_dict(unreadable_item_data)

                unreadable.append(unreadable_item)

        run_page = cls(
            runs=runs,
            next_cursor=next_cursor,
            unreadable=unreadable,
        )

        run_page.additional_properties = d
        return run_page

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
