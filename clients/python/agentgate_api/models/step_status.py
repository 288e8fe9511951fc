from typing import Literal

StepStatus = Literal["cancelled", "failed", "ok", "skipped"]

STEP_STATUS_VALUES: set[StepStatus] = {
    "cancelled",
    "failed",
    "ok",
    "skipped",
}


def check_step_status(value: str) -> StepStatus:
    if value in STEP_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {STEP_STATUS_VALUES!r}"
    )
