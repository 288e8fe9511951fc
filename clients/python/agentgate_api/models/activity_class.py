from typing import Literal

ActivityClass = Literal["none", "tool_active", "tool_errors", "write_active"]

ACTIVITY_CLASS_VALUES: set[ActivityClass] = {
    "none",
    "tool_active",
    "tool_errors",
    "write_active",
}


def check_activity_class(value: str) -> ActivityClass:
    if value in ACTIVITY_CLASS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {ACTIVITY_CLASS_VALUES!r}"
    )
