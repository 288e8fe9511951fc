from typing import Literal

WireApi = Literal["anthropic_messages", "gemini", "openai_chat", "openai_responses"]

WIRE_API_VALUES: set[WireApi] = {
    "anthropic_messages",
    "gemini",
    "openai_chat",
    "openai_responses",
}


def check_wire_api(value: str) -> WireApi:
    if value in WIRE_API_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {WIRE_API_VALUES!r}")
