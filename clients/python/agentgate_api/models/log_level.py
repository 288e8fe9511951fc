from typing import Literal

LogLevel = Literal["debug", "error", "info", "warn"]

LOG_LEVEL_VALUES: set[LogLevel] = {
    "debug",
    "error",
    "info",
    "warn",
}


def check_log_level(value: str) -> LogLevel:
    if value in LOG_LEVEL_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {LOG_LEVEL_VALUES!r}")
