from typing import Literal

LoginState = Literal[
    "api_key_env", "credentials_file", "none_found", "settings", "unknown"
]

LOGIN_STATE_VALUES: set[LoginState] = {
    "api_key_env",
    "credentials_file",
    "none_found",
    "settings",
    "unknown",
}


def check_login_state(value: str) -> LoginState:
    if value in LOGIN_STATE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {LOGIN_STATE_VALUES!r}"
    )
