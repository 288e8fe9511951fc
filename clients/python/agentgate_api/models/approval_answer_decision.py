from typing import Literal

ApprovalAnswerDecision = Literal["allow", "deny"]

APPROVAL_ANSWER_DECISION_VALUES: set[ApprovalAnswerDecision] = {
    "allow",
    "deny",
}


def check_approval_answer_decision(value: str) -> ApprovalAnswerDecision:
    if value in APPROVAL_ANSWER_DECISION_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {APPROVAL_ANSWER_DECISION_VALUES!r}"
    )
