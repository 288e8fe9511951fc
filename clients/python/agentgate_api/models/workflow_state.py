from typing import Literal

WorkflowState = Literal[
    "cancelled", "completed", "failed", "queued", "running", "waiting_ai"
]

WORKFLOW_STATE_VALUES: set[WorkflowState] = {
    "cancelled",
    "completed",
    "failed",
    "queued",
    "running",
    "waiting_ai",
}


def check_workflow_state(value: str) -> WorkflowState:
    if value in WORKFLOW_STATE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {WORKFLOW_STATE_VALUES!r}"
    )
