from typing import Literal

ArtifactState = Literal["mismatch", "missing", "unchecked", "verified"]

ARTIFACT_STATE_VALUES: set[ArtifactState] = {
    "mismatch",
    "missing",
    "unchecked",
    "verified",
}


def check_artifact_state(value: str) -> ArtifactState:
    if value in ARTIFACT_STATE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {ARTIFACT_STATE_VALUES!r}"
    )
