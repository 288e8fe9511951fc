from typing import Literal

ReasoningAbsentReason = Literal[
    "available", "error_path", "model_not_emitted", "not_exposed"
]

REASONING_ABSENT_REASON_VALUES: set[ReasoningAbsentReason] = {
    "available",
    "error_path",
    "model_not_emitted",
    "not_exposed",
}


def check_reasoning_absent_reason(value: str) -> ReasoningAbsentReason:
    if value in REASONING_ABSENT_REASON_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {REASONING_ABSENT_REASON_VALUES!r}"
    )
