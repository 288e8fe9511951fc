from typing import Literal

ExitMeaning = Literal["fatal_error", "ok", "retryable_error", "unexpected"]

EXIT_MEANING_VALUES: set[ExitMeaning] = {
    "fatal_error",
    "ok",
    "retryable_error",
    "unexpected",
}


def check_exit_meaning(value: str) -> ExitMeaning:
    if value in EXIT_MEANING_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {EXIT_MEANING_VALUES!r}"
    )
