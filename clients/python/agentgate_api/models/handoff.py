from typing import Literal

Handoff = Literal["none", "summary"]

HANDOFF_VALUES: set[Handoff] = {
    "none",
    "summary",
}


def check_handoff(value: str) -> Handoff:
    if value in HANDOFF_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {HANDOFF_VALUES!r}")
