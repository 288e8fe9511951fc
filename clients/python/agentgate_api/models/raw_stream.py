from typing import Literal

RawStream = Literal["stderr", "stdout"]

RAW_STREAM_VALUES: set[RawStream] = {
    "stderr",
    "stdout",
}


def check_raw_stream(value: str) -> RawStream:
    if value in RAW_STREAM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {RAW_STREAM_VALUES!r}"
    )
