from typing import Literal

RunState = Literal["abandoned", "cancelled", "failed", "queued", "running", "succeeded"]

RUN_STATE_VALUES: set[RunState] = {
    "abandoned",
    "cancelled",
    "failed",
    "queued",
    "running",
    "succeeded",
}


def check_run_state(value: str) -> RunState:
    if value in RUN_STATE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {RUN_STATE_VALUES!r}")
