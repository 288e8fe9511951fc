from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.error_kind import ErrorKind, check_error_kind
from ..types import UNSET, Unset

T = TypeVar("T", bound="StatusEventType4")


@_attrs_define
class StatusEventType4:
    """agentgate's own: a step of the chain was not started, and the run
    goes on with the next (the envelope's attempt for it has `skipped:
    true`): its provider's quota is known exhausted or held until a time
    still ahead (`--ignore-quota` tries it anyway), or its agent's budget
    window is spent. Written where the attempt would have started, under
    the attempt number it takes.

        Attributes:
            error_type (ErrorKind): What went wrong, in one word every provider maps onto.

                Each kind has a fixed `recoverable` default ([`ErrorKind::recoverable`]):
                recoverable means another provider, or the same one later, may succeed
                with the same request, so failover and retries are worth it.

                | kind | recoverable | why |
                |---|---|---|
                | `timeout` | yes | the wall-clock deadline passed; a faster provider or a calmer moment may make it |
                | `idle_timeout` | yes | the agent went silent; usually a stalled stream |
                | `quota` | yes | a usage limit is exhausted; another provider, or this one after `reset_at` |
                | `rate_limit` | yes | too many requests; wait `retry_after_s` or fail over |
                | `overloaded` | yes | the provider is overloaded (HTTP 529/503) |
                | `invalid_model` | yes | this provider does not know the model; the next agent of a chain names its own model |
                | `invalid_session` | no | the session to resume is gone; no other provider has it (agentgate recreates a
                vanished session itself when allowed, see the envelope's `session_recreated`) |
                | `invalid_input` | no | the request itself is wrong; it fails everywhere |
                | `auth` | no | the provider rejected the credentials; a human has to log in again |
                | `credential_unavailable` | yes | no usable credentials for this provider here (not logged in, key missing);
                another provider or machine may have them |
                | `network` | yes | the provider could not be reached |
                | `context_overflow` | no | the conversation no longer fits the model's context; it needs compaction or a
                smaller prompt |
                | `invalid_output` | yes | the answer failed the caller's JSON Schema; another try may produce a valid one |
                | `user_input_requested` | yes | the agent asked its user a question (a CLI's ask tool), which nobody answers in
                an unattended run; stopped at once, and another agent may not ask |
                | `cancelled` | no | the caller cancelled the run |
                | `provider_error` | yes | the provider failed on its side (HTTP 5xx, a crash) |
                | `session_busy` | yes | another run holds the `--session` (refused with `--session-busy fail`, or waited for
                past the timeout); later it is free |
                | `tool_error` | no | a deterministic tool (`agentgate tool`) failed; its error code's registry entry says
                whether a retry may help, and the envelope's `recoverable` carries that |
                | `policy` | no | the tool policy refused the tool before it started; change the policy or the manifest |
                | `max_turns` | no | the agent used the turns the caller allowed (`--max-turns`) without finishing; the same
                limit stops it again |
                | `budget` | no | the run passed a budget (`--max-cost`, `--max-tokens`, `budgets:`) and its CLI was stopped, a
                budget window was spent before it started (`reset_at`: when it starts again), or it crossed a limit on its model
                use (calls, tokens, model time) that its gateway enforces; the same request passes it again |
                | `unknown` | no | not classified; retrying blindly could repeat side effects |

                - `timeout`: The run's wall-clock deadline passed.
                - `idle_timeout`: The agent printed nothing for longer than the idle limit.
                - `quota`: A usage limit (plan, credits, daily quota) is exhausted.
                - `rate_limit`: Too many requests in a short time (HTTP 429 without exhausted quota).
                - `overloaded`: The provider is overloaded.
                - `invalid_model`: The provider does not know or does not offer the model.
                - `invalid_session`: The session to resume does not exist (any more).
                - `invalid_input`: The request is invalid (bad arguments, unreadable prompt, bad schema).
                - `auth`: The provider rejected the credentials.
                - `credential_unavailable`: No usable credentials for the provider on this machine.
                - `network`: The provider could not be reached.
                - `context_overflow`: The prompt or conversation exceeds the model's context window.
                - `invalid_output`: The answer does not match the caller's JSON Schema.
                - `user_input_requested`: The agent asked its user a question, which nobody answers.
                - `cancelled`: The run was cancelled.
                - `provider_error`: The provider failed on its side.
                - `session_busy`: Another run holds the session the run asked for.
                - `tool_error`: A deterministic tool failed (see the tool envelope's `code`).
                - `policy`: The tool policy refused the tool before it started.
                - `max_turns`: The agent reached the caller's limit on turns (`--max-turns`).
                - `budget`: The run crossed one of its limits on model use (model calls, input
                or output tokens, wall time of model calls), enforced by its gateway.
                - `unknown`: Not classified.
            kind (Literal['skipped']):
            message (str): Why, in words (`skipped claude: its quota is exhausted until
                …`): the skipped attempt's `error` in the envelope.
            step (str): The step skipped: its agent and provider (`reviewer (claude)`),
                or its provider's name (named as `failover`'s `from`; the
                header's `provider` is its provider).
            reset_at (datetime.datetime | None | Unset): When the quota or the budget window resets, RFC 3339 in UTC;
                absent when not known.
    """

    error_type: ErrorKind
    kind: Literal["skipped"]
    message: str
    step: str
    reset_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        error_type: str = self.error_type

        kind = self.kind

        message = self.message

        step = self.step

        reset_at: None | str | Unset
        if isinstance(self.reset_at, Unset):
            reset_at = UNSET
        elif isinstance(self.reset_at, datetime.datetime):
            reset_at = self.reset_at.isoformat()
        else:
            reset_at = self.reset_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "error_type": error_type,
                "kind": kind,
                "message": message,
                "step": step,
            }
        )
        if reset_at is not UNSET:
            field_dict["reset_at"] = reset_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        error_type = check_error_kind(d.pop("error_type"))

        kind = cast(Literal["skipped"], d.pop("kind"))
        if kind != "skipped":
            raise ValueError(f"kind must match const 'skipped', got '{kind}'")

        message = d.pop("message")

        step = d.pop("step")

        def _parse_reset_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reset_at_type_0 = datetime.datetime.fromisoformat(data)

                return reset_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        reset_at = _parse_reset_at(d.pop("reset_at", UNSET))

        status_event_type_4 = cls(
            error_type=error_type,
            kind=kind,
            message=message,
            step=step,
            reset_at=reset_at,
        )

        status_event_type_4.additional_properties = d
        return status_event_type_4

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
