from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.changed_file import ChangedFile


T = TypeVar("T", bound="WorkspaceReport")


@_attrs_define
class WorkspaceReport:
    """The git worktree a run ran in (`workspace: worktree`): a fresh checkout
    of the repository's `HEAD` on a branch of the run's own.

    A worktree the run left unchanged (no file changed, nothing committed
    on its branch) is removed with its branch (`kept: false`); a changed
    one is kept, whatever the run's outcome, for the caller to review,
    merge or delete (`git worktree remove PATH`, `git branch -D BRANCH`).

        Attributes:
            base_commit (str): The commit the worktree started from (the repository's `HEAD` when
                the run started; uncommitted changes of the main tree are not in it).
            branch (str): The worktree's branch, `agentgate/<run_id>`.
            changed_files (list[ChangedFile]): What differs from `base_commit`, uncommitted or committed, paths
                relative to `path`; empty when nothing changed.
            cwd (str): Where the CLI ran: the same subfolder of the worktree as the
                requested `cwd` is of the repository.
            kept (bool): Whether the worktree and its branch are still there: `true` when the
                run changed something, or when what it changed could not be told.
            mode (str): Always `worktree` (a run in the shared working tree has no report).
            path (str): The worktree's folder.
            repository (str): The main working tree of the repository the run's `cwd` is in.
    """

    base_commit: str
    branch: str
    changed_files: list[ChangedFile]
    cwd: str
    kept: bool
    mode: str
    path: str
    repository: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        base_commit = self.base_commit

        branch = self.branch

        changed_files = []
        for changed_files_item_data in self.changed_files:
            changed_files_item = changed_files_item_data.to_dict()
            changed_files.append(changed_files_item)

        cwd = self.cwd

        kept = self.kept

        mode = self.mode

        path = self.path

        repository = self.repository

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "base_commit": base_commit,
                "branch": branch,
                "changed_files": changed_files,
                "cwd": cwd,
                "kept": kept,
                "mode": mode,
                "path": path,
                "repository": repository,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.changed_file import ChangedFile

        d = dict(src_dict)
        base_commit = d.pop("base_commit")

        branch = d.pop("branch")

        changed_files = []
        _changed_files = d.pop("changed_files")
        for changed_files_item_data in _changed_files:
            changed_files_item = ChangedFile.from_dict(changed_files_item_data)

            changed_files.append(changed_files_item)

        cwd = d.pop("cwd")

        kept = d.pop("kept")

        mode = d.pop("mode")

        path = d.pop("path")

        repository = d.pop("repository")

        workspace_report = cls(
            base_commit=base_commit,
            branch=branch,
            changed_files=changed_files,
            cwd=cwd,
            kept=kept,
            mode=mode,
            path=path,
            repository=repository,
        )

        workspace_report.additional_properties = d
        return workspace_report

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
