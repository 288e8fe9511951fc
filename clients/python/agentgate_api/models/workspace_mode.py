from typing import Literal

WorkspaceMode = Literal["shared", "worktree"]

WORKSPACE_MODE_VALUES: set[WorkspaceMode] = {
    "shared",
    "worktree",
}


def check_workspace_mode(value: str) -> WorkspaceMode:
    if value in WORKSPACE_MODE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {WORKSPACE_MODE_VALUES!r}"
    )
