from typing import Literal

SkillScope = Literal["project", "system", "user"]

SKILL_SCOPE_VALUES: set[SkillScope] = {
    "project",
    "system",
    "user",
}


def check_skill_scope(value: str) -> SkillScope:
    if value in SKILL_SCOPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {SKILL_SCOPE_VALUES!r}"
    )
