from typing import Literal

FallbackFrom = Literal["session_file", "store"]

FALLBACK_FROM_VALUES: set[FallbackFrom] = {
    "session_file",
    "store",
}


def check_fallback_from(value: str) -> FallbackFrom:
    if value in FALLBACK_FROM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {FALLBACK_FROM_VALUES!r}"
    )
