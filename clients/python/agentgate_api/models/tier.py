from typing import Literal

Tier = Literal["fast", "thinking"]

TIER_VALUES: set[Tier] = {
    "fast",
    "thinking",
}


def check_tier(value: str) -> Tier:
    if value in TIER_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {TIER_VALUES!r}")
