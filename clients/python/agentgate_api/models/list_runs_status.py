from typing import Literal

ListRunsStatus = Literal[
    "abandoned", "cancelled", "failed", "queued", "running", "succeeded"
]

LIST_RUNS_STATUS_VALUES: set[ListRunsStatus] = {
    "abandoned",
    "cancelled",
    "failed",
    "queued",
    "running",
    "succeeded",
}


def check_list_runs_status(value: str) -> ListRunsStatus:
    if value in LIST_RUNS_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {LIST_RUNS_STATUS_VALUES!r}"
    )
