from typing import Literal

RunEventsResponse200Event = Literal["end", "message", "requeued"]

RUN_EVENTS_RESPONSE_200_EVENT_VALUES: set[RunEventsResponse200Event] = {
    "end",
    "message",
    "requeued",
}


def check_run_events_response_200_event(value: str) -> RunEventsResponse200Event:
    if value in RUN_EVENTS_RESPONSE_200_EVENT_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {RUN_EVENTS_RESPONSE_200_EVENT_VALUES!r}"
    )
