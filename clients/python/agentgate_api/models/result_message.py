from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.artifact_ref import ArtifactRef
    from ..models.result_message_metrics_type_0 import ResultMessageMetricsType0


T = TypeVar("T", bound="ResultMessage")


@_attrs_define
class ResultMessage:
    """Body of `result`.

    Attributes:
        status (str): `ok`, or another word the tool chose. Default: 'ok'.
        artifacts (list[ArtifactRef] | Unset): Files produced.
        metrics (None | ResultMessageMetricsType0 | Unset): Figures: rows, files, durations.
    """

    status: str = "ok"
    artifacts: list[ArtifactRef] | Unset = UNSET
    metrics: None | ResultMessageMetricsType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.result_message_metrics_type_0 import ResultMessageMetricsType0

        status = self.status

        artifacts: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.artifacts, Unset):
            artifacts = []
            for artifacts_item_data in self.artifacts:
                artifacts_item = artifacts_item_data.to_dict()
                artifacts.append(artifacts_item)

        metrics: dict[str, Any] | None | Unset
        if isinstance(self.metrics, Unset):
            metrics = UNSET
        elif isinstance(self.metrics, ResultMessageMetricsType0):
            metrics = self.metrics.to_dict()
        else:
            metrics = self.metrics

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
            }
        )
        if artifacts is not UNSET:
            field_dict["artifacts"] = artifacts
        if metrics is not UNSET:
            field_dict["metrics"] = metrics

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.artifact_ref import ArtifactRef
        from ..models.result_message_metrics_type_0 import ResultMessageMetricsType0

        d = dict(src_dict)
        status = d.pop("status")

        _artifacts = d.pop("artifacts", UNSET)
        artifacts: list[ArtifactRef] | Unset = UNSET
        if _artifacts is not UNSET:
            artifacts = []
            for artifacts_item_data in _artifacts:
                artifacts_item = ArtifactRef.from_dict(artifacts_item_data)

                artifacts.append(artifacts_item)

        def _parse_metrics(data: object) -> None | ResultMessageMetricsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metrics_type_0 = ResultMessageMetricsType0.from_dict(data)

                return metrics_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResultMessageMetricsType0 | Unset, data)

        metrics = _parse_metrics(d.pop("metrics", UNSET))

        result_message = cls(
            status=status,
            artifacts=artifacts,
            metrics=metrics,
        )

        result_message.additional_properties = d
        return result_message

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
