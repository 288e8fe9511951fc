from typing import Literal

SessionBusy = Literal["fail", "wait"]

SESSION_BUSY_VALUES: set[SessionBusy] = {
    "fail",
    "wait",
}


def check_session_busy(value: str) -> SessionBusy:
    if value in SESSION_BUSY_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {SESSION_BUSY_VALUES!r}"
    )
