from typing import Literal

OnDirty = Literal["continue", "stash", "stop"]

ON_DIRTY_VALUES: set[OnDirty] = {
    "continue",
    "stash",
    "stop",
}


def check_on_dirty(value: str) -> OnDirty:
    if value in ON_DIRTY_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ON_DIRTY_VALUES!r}")
