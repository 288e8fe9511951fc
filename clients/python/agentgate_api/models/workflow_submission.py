from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.workflow_submission_labels import WorkflowSubmissionLabels


T = TypeVar("T", bound="WorkflowSubmission")


@_attrs_define
class WorkflowSubmission:
    """The body of `POST /v1/workflows`.

    Attributes:
        base_dir (None | str | Unset): With `workflow`: the absolute folder its relative paths (and the
            tool registry) are found from, as a file's own folder would be. It
            must lie in the server's folders (the folder it was started in, its
            config file's folder).
        file (None | str | Unset): Instead of `workflow`: the absolute path of a workflow file (`.yaml`,
            `.yml` or `.json`) on the server's machine, in the server's folders
            (the folder it was started in, its config file's folder). A file
            that does not parse is refused with its line, never its text.
        idempotency_key (None | str | Unset): A repeated key returns the run the first submission created.
        input_ (Any | Unset): The workflow's input (`${input...}`).
        labels (WorkflowSubmissionLabels | Unset): Labels of the workflow's job, `{"key": "value"}` (as a run's): listed
            and cancelled by label like runs (a cancel stops its running steps);
            its envelope and every step's run carry them.
        not_before (datetime.datetime | None | Unset): Not started before this time.
        priority (int | Unset): Higher runs first (-1000 to 1000). Default: 0.
        workflow (Any | Unset): The workflow: the file's text (YAML or JSON), or the workflow as a
            JSON object. Give it with `base_dir`, or give `file` instead.
    """

    base_dir: None | str | Unset = UNSET
    file: None | str | Unset = UNSET
    idempotency_key: None | str | Unset = UNSET
    input_: Any | Unset = UNSET
    labels: WorkflowSubmissionLabels | Unset = UNSET
    not_before: datetime.datetime | None | Unset = UNSET
    priority: int | Unset = 0
    workflow: Any | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        base_dir: None | str | Unset
        if isinstance(self.base_dir, Unset):
            base_dir = UNSET
        else:
            base_dir = self.base_dir

        file: None | str | Unset
        if isinstance(self.file, Unset):
            file = UNSET
        else:
            file = self.file

        idempotency_key: None | str | Unset
        if isinstance(self.idempotency_key, Unset):
            idempotency_key = UNSET
        else:
            idempotency_key = self.idempotency_key

        input_ = self.input_

        labels: dict[str, Any] | Unset = UNSET
        if not isinstance(self.labels, Unset):
            labels = self.labels.to_dict()

        not_before: None | str | Unset
        if isinstance(self.not_before, Unset):
            not_before = UNSET
        elif isinstance(self.not_before, datetime.datetime):
            not_before = self.not_before.isoformat()
        else:
            not_before = self.not_before

        priority = self.priority

        workflow = self.workflow

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if base_dir is not UNSET:
            field_dict["base_dir"] = base_dir
        if file is not UNSET:
            field_dict["file"] = file
        if idempotency_key is not UNSET:
            field_dict["idempotency_key"] = idempotency_key
        if input_ is not UNSET:
            field_dict["input"] = input_
        if labels is not UNSET:
            field_dict["labels"] = labels
        if not_before is not UNSET:
            field_dict["not_before"] = not_before
        if priority is not UNSET:
            field_dict["priority"] = priority
        if workflow is not UNSET:
            field_dict["workflow"] = workflow

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.workflow_submission_labels import WorkflowSubmissionLabels

        d = dict(src_dict)

        def _parse_base_dir(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        base_dir = _parse_base_dir(d.pop("base_dir", UNSET))

        def _parse_file(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        file = _parse_file(d.pop("file", UNSET))

        def _parse_idempotency_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        idempotency_key = _parse_idempotency_key(d.pop("idempotency_key", UNSET))

        input_ = d.pop("input", UNSET)

        _labels = d.pop("labels", UNSET)
        labels: WorkflowSubmissionLabels | Unset
        if isinstance(_labels, Unset):
            labels = UNSET
        else:
            labels = WorkflowSubmissionLabels.from_dict(_labels)

        def _parse_not_before(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                not_before_type_0 = datetime.datetime.fromisoformat(data)

                return not_before_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        not_before = _parse_not_before(d.pop("not_before", UNSET))

        priority = d.pop("priority", UNSET)

        workflow = d.pop("workflow", UNSET)

        workflow_submission = cls(
            base_dir=base_dir,
            file=file,
            idempotency_key=idempotency_key,
            input_=input_,
            labels=labels,
            not_before=not_before,
            priority=priority,
            workflow=workflow,
        )

        return workflow_submission
