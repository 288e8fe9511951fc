from typing import Literal

WarmProcessState = Literal["replaced", "reused", "started"]

WARM_PROCESS_STATE_VALUES: set[WarmProcessState] = {
    "replaced",
    "reused",
    "started",
}


def check_warm_process_state(value: str) -> WarmProcessState:
    if value in WARM_PROCESS_STATE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {WARM_PROCESS_STATE_VALUES!r}"
    )
