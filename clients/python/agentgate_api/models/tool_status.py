from typing import Literal

ToolStatus = Literal["action_required", "cancelled", "error", "ok"]

TOOL_STATUS_VALUES: set[ToolStatus] = {
    "action_required",
    "cancelled",
    "error",
    "ok",
}


def check_tool_status(value: str) -> ToolStatus:
    if value in TOOL_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {TOOL_STATUS_VALUES!r}"
    )
