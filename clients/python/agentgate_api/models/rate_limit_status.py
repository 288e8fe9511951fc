from typing import Literal

RateLimitStatus = Literal["allowed", "rejected", "warning"]

RATE_LIMIT_STATUS_VALUES: set[RateLimitStatus] = {
    "allowed",
    "rejected",
    "warning",
}


def check_rate_limit_status(value: str) -> RateLimitStatus:
    if value in RATE_LIMIT_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {RATE_LIMIT_STATUS_VALUES!r}"
    )
