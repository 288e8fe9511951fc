from typing import Literal

CancelReason = Literal["request", "shutdown", "signal"]

CANCEL_REASON_VALUES: set[CancelReason] = {
    "request",
    "shutdown",
    "signal",
}


def check_cancel_reason(value: str) -> CancelReason:
    if value in CANCEL_REASON_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {CANCEL_REASON_VALUES!r}"
    )
