from typing import Literal

SandboxLevel = Literal["container", "off", "strict", "workspace"]

SANDBOX_LEVEL_VALUES: set[SandboxLevel] = {
    "container",
    "off",
    "strict",
    "workspace",
}


def check_sandbox_level(value: str) -> SandboxLevel:
    if value in SANDBOX_LEVEL_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {SANDBOX_LEVEL_VALUES!r}"
    )
