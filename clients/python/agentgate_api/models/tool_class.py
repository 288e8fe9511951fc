from typing import Literal

ToolClass = Literal["browser", "other", "read", "shell", "web", "write"]

TOOL_CLASS_VALUES: set[ToolClass] = {
    "browser",
    "other",
    "read",
    "shell",
    "web",
    "write",
}


def check_tool_class(value: str) -> ToolClass:
    if value in TOOL_CLASS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {TOOL_CLASS_VALUES!r}"
    )
