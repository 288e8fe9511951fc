from typing import Literal

UsageSource = Literal["cli", "wire"]

USAGE_SOURCE_VALUES: set[UsageSource] = {
    "cli",
    "wire",
}


def check_usage_source(value: str) -> UsageSource:
    if value in USAGE_SOURCE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {USAGE_SOURCE_VALUES!r}"
    )
