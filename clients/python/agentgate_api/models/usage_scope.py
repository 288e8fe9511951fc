from typing import Literal

UsageScope = Literal["total", "turn"]

USAGE_SCOPE_VALUES: set[UsageScope] = {
    "total",
    "turn",
}


def check_usage_scope(value: str) -> UsageScope:
    if value in USAGE_SCOPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {USAGE_SCOPE_VALUES!r}"
    )
