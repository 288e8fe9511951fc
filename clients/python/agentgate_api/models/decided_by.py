from typing import Literal

DecidedBy = Literal["cancelled", "human", "policy", "repeat", "timeout"]

DECIDED_BY_VALUES: set[DecidedBy] = {
    "cancelled",
    "human",
    "policy",
    "repeat",
    "timeout",
}


def check_decided_by(value: str) -> DecidedBy:
    if value in DECIDED_BY_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {DECIDED_BY_VALUES!r}"
    )
