"""Following a run's events: `GET /v1/runs/{id}/events` as an iterator of
protocol events that survives a dropped connection.

The server sends one message per protocol event (`id:` its `seq`, `data:`
its JSON line), ends the stream after the run's final `result` event, and
sends `event: requeued` (no id) between two runs of a job that runs again
(a retry, a quota wait, a restart; ids keep increasing across them) and
`event: end` (no id; data: the run's status, error and envelope) when a
run ended without a `result`.

So the stream is over after an `end` message, or when the connection
closes after a `result` event and `GET /v1/runs/{id}` says the run is no
longer queued or running (a job that runs again is still one of those).
Any other close, a broken connection, or silence past `silence` (the
server sends a keep-alive every 15 s) reconnects with `Last-Event-ID` set
to the last event's id: the server sends only later events, and an event
already seen is dropped anyway. Reconnecting waits 0.25 s, doubling, and
gives up with `StreamBroken` after `reconnects` tries in a row without an
event between them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import httpx

from .sse import SseMessage, SseParser

if TYPE_CHECKING:
    from .client import Agentgate


@dataclass
class Event:
    """A protocol event: its `seq` (the message id), its JSON line as sent,
    and the line parsed (`data["type"]`: `start`, `message`, `result`, ...)."""

    seq: int | None
    text: str
    data: dict[str, Any]

    @property
    def type(self) -> str | None:
        return self.data.get("type")


@dataclass
class Requeued:
    """A job's run ended and the job runs again: the job's state."""

    data: dict[str, Any]


@dataclass
class End:
    """The run ended without a `result` event: its status, error and
    envelope. Nothing follows."""

    data: dict[str, Any]


StreamItem = Event | Requeued | End


class StreamBroken(Exception):
    """The stream could not be followed to the run's end."""


class RunTimeout(Exception):
    """The run did not end before the deadline given."""


class RunEvents:
    """Iterate to get the run's events in order, each once, to its end.

    `last_event_id`: start after this id (what an earlier stream's last
    `Event.seq` was). `deadline` (a `time.monotonic()` value): raise
    `RunTimeout` once past it (checked at every message and keep-alive,
    and the read timeout is cut to it). After the iteration, `last_event_id` is the last id
    received and `connections` how many requests it took.
    """

    def __init__(
        self,
        client: Agentgate,
        run_id: str,
        last_event_id: int | None = None,
        *,
        silence: float = 60.0,
        reconnects: int = 5,
        backoff: float = 0.25,
        deadline: float | None = None,
    ) -> None:
        self._client = client
        self.run_id = run_id
        self.path = f"/v1/runs/{quote(run_id, safe='')}/events"
        self.last_event_id = last_event_id
        self.connections = 0
        self._silence = silence
        self._reconnects = reconnects
        self._backoff = backoff
        self._deadline = deadline

    def __iter__(self) -> Iterator[StreamItem]:
        failures = 0
        while True:
            after_result = False
            try:
                for message in self._connect():
                    self._check_deadline()
                    item = self._accept(message)
                    if item is None:
                        continue
                    if isinstance(item, End):
                        yield item
                        return
                    if isinstance(item, Event):
                        failures = 0
                        after_result = item.type == "result"
                    else:
                        after_result = False
                    yield item
            except (httpx.TransportError, httpx.RemoteProtocolError):
                pass  # dropped or silent: connect again below
            self._check_deadline()
            if after_result and self._run_is_over():
                return
            if failures >= self._reconnects:
                raise StreamBroken(
                    f"the event stream of {self.run_id} ended {failures} times in a row before the run's end"
                )
            time.sleep(self._backoff * (2**failures))
            failures += 1

    def _connect(self) -> Iterator[SseMessage]:
        headers = {"Accept": "text/event-stream"}
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = str(self.last_event_id)
        read = self._silence
        if self._deadline is not None:
            read = max(0.1, min(read, self._deadline - time.monotonic()))
        timeout = httpx.Timeout(30.0, read=read)
        http = self._client.api.get_httpx_client()
        self.connections += 1
        with http.stream("GET", self.path, headers=headers, timeout=timeout) as response:
            if response.status_code != 200:
                response.read()
                raise self._client.error_of(response.status_code, response.content)
            parser = SseParser()
            for chunk in response.iter_bytes():
                yield from parser.feed(chunk)

    def _check_deadline(self) -> None:
        if self._deadline is not None and time.monotonic() > self._deadline:
            raise RunTimeout(f"{self.run_id} did not end before the deadline")

    def _accept(self, message: SseMessage) -> StreamItem | None:
        if message.event == "requeued":
            return Requeued(_json_or_empty(message.data))
        if message.event == "end":
            return End(_json_or_empty(message.data))
        if message.event not in (None, "message") or message.data == "":
            return None
        seq = None
        if message.id is not None:
            try:
                seq = int(message.id)
            except ValueError as e:
                raise StreamBroken(f"the server sent an event id that is not a number: {message.id!r}") from e
            if self.last_event_id is not None and seq <= self.last_event_id:
                return None  # seen before the connection dropped
            self.last_event_id = seq
        return Event(seq=seq, text=message.data, data=json.loads(message.data))

    def _run_is_over(self) -> bool:
        """After a `result`: whether the run (or its job) is final."""
        from .client import ApiError

        try:
            run = self._client.get_run(self.run_id)
        except ApiError as e:
            # Not a job of the queue (a run `agentgate run` wrote): its
            # `result` is its end.
            return e.status == 404
        except httpx.TransportError:
            return False
        return str(run.status) not in ("queued", "running")


def _json_or_empty(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {"value": value}
