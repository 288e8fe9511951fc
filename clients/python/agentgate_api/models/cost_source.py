from typing import Literal

CostSource = Literal["both", "cli", "rate_card"]

COST_SOURCE_VALUES: set[CostSource] = {
    "both",
    "cli",
    "rate_card",
}


def check_cost_source(value: str) -> CostSource:
    if value in COST_SOURCE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {COST_SOURCE_VALUES!r}"
    )
