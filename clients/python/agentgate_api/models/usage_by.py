from typing import Literal

UsageBy = Literal["day", "month", "week"]

USAGE_BY_VALUES: set[UsageBy] = {
    "day",
    "month",
    "week",
}


def check_usage_by(value: str) -> UsageBy:
    if value in USAGE_BY_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {USAGE_BY_VALUES!r}")
