"""agentgate's Python client: the generated package `agentgate_api` (every
route, typed from docs/openapi.json) plus what generation does not cover.

- `Agentgate`: a bearer-token client over the generated functions whose
  errors are raised as `ApiError` (status, type, message, field), with
  the run operations by name (submit, get_run, cancel, approvals, answer).
- `Agentgate.events(run_id)`: a run's events (`GET /v1/runs/{id}/events`)
  followed to the end, resumed with `Last-Event-ID` after a dropped
  connection (`events.py`; the SSE parsing is `sse.py`).
- `Agentgate.wait_for_run(run_id)`: the run once it ended.

The generated code is never edited: `scripts/gen-clients.sh` rewrites it.
"""

from .client import Agentgate, ApiError
from .events import End, Event, Requeued, RunEvents, RunTimeout, StreamBroken
from .sse import SseMessage, SseParser

__all__ = [
    "Agentgate",
    "ApiError",
    "End",
    "Event",
    "Requeued",
    "RunEvents",
    "RunTimeout",
    "SseMessage",
    "SseParser",
    "StreamBroken",
]
