"""Server-Sent Events: bytes in, messages out (the WHATWG event-stream
format: `field: value` lines, a blank line ends a message, `:` starts a
comment, `data` lines joined with newlines; CR, LF and CRLF all end a
line). No I/O: `events.py` feeds it what the connection reads."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class SseMessage:
    """One message: its `event` (None for the default `message`), `id` (None
    when the message has no `id:` line), `data`, and the comments read since
    the message before (`: keep-alive`)."""

    event: str | None = None
    id: str | None = None
    data: str = ""
    comments: list[str] = field(default_factory=list)


class SseParser:
    """Feed it bytes as they arrive; it returns the complete messages."""

    def __init__(self) -> None:
        self._buffer = b""
        self._event: str | None = None
        self._id: str | None = None
        self._data: list[str] = []
        self._comments: list[str] = []
        self._has_fields = False

    def feed(self, chunk: bytes) -> list[SseMessage]:
        self._buffer += chunk
        out: list[SseMessage] = []
        while True:
            line, rest = self._split_line(self._buffer)
            if line is None:
                return out
            self._buffer = rest
            message = self._line(line.decode("utf-8", errors="replace"))
            if message is not None:
                out.append(message)

    @staticmethod
    def _split_line(buffer: bytes) -> tuple[bytes | None, bytes]:
        for i, byte in enumerate(buffer):
            if byte == 0x0A:
                return buffer[:i], buffer[i + 1 :]
            if byte == 0x0D:
                # A CR at the very end may be the first half of a CRLF.
                if i + 1 == len(buffer):
                    return None, buffer
                skip = 2 if buffer[i + 1] == 0x0A else 1
                return buffer[:i], buffer[i + skip :]
        return None, buffer

    def _line(self, line: str) -> SseMessage | None:
        if line == "":
            if not self._has_fields and not self._comments:
                return None
            message = SseMessage(
                event=self._event,
                id=self._id,
                data="\n".join(self._data),
                comments=self._comments,
            )
            self._event, self._id, self._data, self._comments = None, None, [], []
            self._has_fields = False
            return message
        if line.startswith(":"):
            self._comments.append(line[1:].lstrip(" "))
            return None
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._id = value
        else:
            return None  # `retry` and unknown fields: ignored
        self._has_fields = True
        return None
