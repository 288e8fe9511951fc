from typing import Literal

ErrorSource = Literal["exit_status", "internal", "pattern", "structured"]

ERROR_SOURCE_VALUES: set[ErrorSource] = {
    "exit_status",
    "internal",
    "pattern",
    "structured",
}


def check_error_source(value: str) -> ErrorSource:
    if value in ERROR_SOURCE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {ERROR_SOURCE_VALUES!r}"
    )
