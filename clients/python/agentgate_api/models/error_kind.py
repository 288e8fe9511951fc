from typing import Literal

ErrorKind = Literal[
    "auth",
    "budget",
    "cancelled",
    "context_overflow",
    "credential_unavailable",
    "idle_timeout",
    "invalid_input",
    "invalid_model",
    "invalid_output",
    "invalid_session",
    "max_turns",
    "network",
    "overloaded",
    "policy",
    "provider_error",
    "quota",
    "rate_limit",
    "session_busy",
    "timeout",
    "tool_error",
    "unknown",
    "user_input_requested",
]

ERROR_KIND_VALUES: set[ErrorKind] = {
    "auth",
    "budget",
    "cancelled",
    "context_overflow",
    "credential_unavailable",
    "idle_timeout",
    "invalid_input",
    "invalid_model",
    "invalid_output",
    "invalid_session",
    "max_turns",
    "network",
    "overloaded",
    "policy",
    "provider_error",
    "quota",
    "rate_limit",
    "session_busy",
    "timeout",
    "tool_error",
    "unknown",
    "user_input_requested",
}


def check_error_kind(value: str) -> ErrorKind:
    if value in ERROR_KIND_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {ERROR_KIND_VALUES!r}"
    )
