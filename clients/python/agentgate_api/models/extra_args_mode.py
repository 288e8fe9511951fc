from typing import Literal

ExtraArgsMode = Literal["append", "replace"]

EXTRA_ARGS_MODE_VALUES: set[ExtraArgsMode] = {
    "append",
    "replace",
}


def check_extra_args_mode(value: str) -> ExtraArgsMode:
    if value in EXTRA_ARGS_MODE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {EXTRA_ARGS_MODE_VALUES!r}"
    )
