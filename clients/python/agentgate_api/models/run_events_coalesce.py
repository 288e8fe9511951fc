from typing import Literal

RunEventsCoalesce = Literal["paragraph", "sentence", "size"]

RUN_EVENTS_COALESCE_VALUES: set[RunEventsCoalesce] = {
    "paragraph",
    "sentence",
    "size",
}


def check_run_events_coalesce(value: str) -> RunEventsCoalesce:
    if value in RUN_EVENTS_COALESCE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {RUN_EVENTS_COALESCE_VALUES!r}"
    )
