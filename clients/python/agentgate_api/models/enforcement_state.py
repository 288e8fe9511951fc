from typing import Literal

EnforcementState = Literal["enforced", "none", "not_enforced", "partial"]

ENFORCEMENT_STATE_VALUES: set[EnforcementState] = {
    "enforced",
    "none",
    "not_enforced",
    "partial",
}


def check_enforcement_state(value: str) -> EnforcementState:
    if value in ENFORCEMENT_STATE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {ENFORCEMENT_STATE_VALUES!r}"
    )
