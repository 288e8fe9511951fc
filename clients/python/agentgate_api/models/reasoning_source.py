from typing import Literal

ReasoningSource = Literal["none", "raw_output", "session_log"]

REASONING_SOURCE_VALUES: set[ReasoningSource] = {
    "none",
    "raw_output",
    "session_log",
}


def check_reasoning_source(value: str) -> ReasoningSource:
    if value in REASONING_SOURCE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {REASONING_SOURCE_VALUES!r}"
    )
