from typing import Literal

ToolErrorClass = Literal[
    "infra_error", "policy_error", "retryable", "unknown", "user_error"
]

TOOL_ERROR_CLASS_VALUES: set[ToolErrorClass] = {
    "infra_error",
    "policy_error",
    "retryable",
    "unknown",
    "user_error",
}


def check_tool_error_class(value: str) -> ToolErrorClass:
    if value in TOOL_ERROR_CLASS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {TOOL_ERROR_CLASS_VALUES!r}"
    )
