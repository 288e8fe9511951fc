from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.wire_api import WireApi, check_wire_api
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.rate_limit_window import RateLimitWindow
    from ..models.usage import Usage


T = TypeVar("T", bound="ModelCallEvent")


@_attrs_define
class ModelCallEvent:
    """Body of `model_call`: one request a CLI made to its model API through
    the run's gateway, as seen on the wire.

        Attributes:
            api (WireApi): The wire API of a model call.

                - `anthropic_messages`: Anthropic Messages (`POST /v1/messages`).
                - `openai_responses`: OpenAI Responses (`POST /v1/responses`).
                - `openai_chat`: OpenAI Chat Completions (`POST /v1/chat/completions`).
                - `gemini`: Gemini generateContent (`POST /v1beta/models/M:generateContent`, and
                `:streamGenerateContent`).
            call (int): Which call of the attempt this is, from 1.
            latency_ms (int): From the request's arrival to the response's last byte.
            path (str): The request's path, without the gateway's secret prefix and without
                the query.
            request_bytes (int): Bytes of the request body.
            response_bytes (int): Bytes of the response body passed back to the CLI.
            stream (bool): Whether the response was a stream (SSE).
            cache_write_1h_tokens (int | None | Unset): The part written with a 1-hour TTL
                (`cache_creation.ephemeral_1h_input_tokens`).
            cache_write_5m_tokens (int | None | Unset): The part of `usage.cache_creation_input_tokens` written with a
                5-minute TTL, where the API says (Anthropic's
                `cache_creation.ephemeral_5m_input_tokens`).
            error (None | str | Unset): What went wrong on the wire: the upstream unreachable or reset, an
                invalid stream, a body over the bound, a wrong stub key.
            model (None | str | Unset): The model the request named (the response's when the request named
                none).
            rate_limits (list[RateLimitWindow] | Unset): The rate-limit windows of the response's headers.
            refused_by (None | str | Unset): The run's limit that made the gateway refuse this call itself
                (`max_model_calls`, `max_input_tokens`, `max_output_tokens`,
                `max_model_time`).
            retry_after_s (int | None | Unset): The response's `retry-after`, in seconds.
            status (int | None | Unset): The upstream's HTTP status; absent when none came (the gateway
                refused the call or the upstream could not be reached).
            ttft_ms (int | None | Unset): From the request's arrival to the first byte of the response body.
            usage (None | Unset | Usage): Tokens by class as the API reported them; absent when the response
                carried no usage.
    """

    api: WireApi
    call: int
    latency_ms: int
    path: str
    request_bytes: int
    response_bytes: int
    stream: bool
    cache_write_1h_tokens: int | None | Unset = UNSET
    cache_write_5m_tokens: int | None | Unset = UNSET
    error: None | str | Unset = UNSET
    model: None | str | Unset = UNSET
    rate_limits: list[RateLimitWindow] | Unset = UNSET
    refused_by: None | str | Unset = UNSET
    retry_after_s: int | None | Unset = UNSET
    status: int | None | Unset = UNSET
    ttft_ms: int | None | Unset = UNSET
    usage: None | Unset | Usage = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.usage import Usage

        api: str = self.api

        call = self.call

        latency_ms = self.latency_ms

        path = self.path

        request_bytes = self.request_bytes

        response_bytes = self.response_bytes

        stream = self.stream

        cache_write_1h_tokens: int | None | Unset
        if isinstance(self.cache_write_1h_tokens, Unset):
            cache_write_1h_tokens = UNSET
        else:
            cache_write_1h_tokens = self.cache_write_1h_tokens

        cache_write_5m_tokens: int | None | Unset
        if isinstance(self.cache_write_5m_tokens, Unset):
            cache_write_5m_tokens = UNSET
        else:
            cache_write_5m_tokens = self.cache_write_5m_tokens

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        rate_limits: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.rate_limits, Unset):
            rate_limits = []
            for rate_limits_item_data in self.rate_limits:
                rate_limits_item = rate_limits_item_data.to_dict()
                rate_limits.append(rate_limits_item)

        refused_by: None | str | Unset
        if isinstance(self.refused_by, Unset):
            refused_by = UNSET
        else:
            refused_by = self.refused_by

        retry_after_s: int | None | Unset
        if isinstance(self.retry_after_s, Unset):
            retry_after_s = UNSET
        else:
            retry_after_s = self.retry_after_s

        status: int | None | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        else:
            status = self.status

        ttft_ms: int | None | Unset
        if isinstance(self.ttft_ms, Unset):
            ttft_ms = UNSET
        else:
            ttft_ms = self.ttft_ms

        usage: dict[str, Any] | None | Unset
        if isinstance(self.usage, Unset):
            usage = UNSET
        elif isinstance(self.usage, Usage):
            usage = self.usage.to_dict()
        else:
            usage = self.usage

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "api": api,
                "call": call,
                "latency_ms": latency_ms,
                "path": path,
                "request_bytes": request_bytes,
                "response_bytes": response_bytes,
                "stream": stream,
            }
        )
        if cache_write_1h_tokens is not UNSET:
            field_dict["cache_write_1h_tokens"] = cache_write_1h_tokens
        if cache_write_5m_tokens is not UNSET:
            field_dict["cache_write_5m_tokens"] = cache_write_5m_tokens
        if error is not UNSET:
            field_dict["error"] = error
        if model is not UNSET:
            field_dict["model"] = model
        if rate_limits is not UNSET:
            field_dict["rate_limits"] = rate_limits
        if refused_by is not UNSET:
            field_dict["refused_by"] = refused_by
        if retry_after_s is not UNSET:
            field_dict["retry_after_s"] = retry_after_s
        if status is not UNSET:
            field_dict["status"] = status
        if ttft_ms is not UNSET:
            field_dict["ttft_ms"] = ttft_ms
        if usage is not UNSET:
            field_dict["usage"] = usage

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.rate_limit_window import RateLimitWindow
        from ..models.usage import Usage

        d = dict(src_dict)
        api = check_wire_api(d.pop("api"))

        call = d.pop("call")

        latency_ms = d.pop("latency_ms")

        path = d.pop("path")

        request_bytes = d.pop("request_bytes")

        response_bytes = d.pop("response_bytes")

        stream = d.pop("stream")

        def _parse_cache_write_1h_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        cache_write_1h_tokens = _parse_cache_write_1h_tokens(
            d.pop("cache_write_1h_tokens", UNSET)
        )

        def _parse_cache_write_5m_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        cache_write_5m_tokens = _parse_cache_write_5m_tokens(
            d.pop("cache_write_5m_tokens", UNSET)
        )

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        _rate_limits = d.pop("rate_limits", UNSET)
        rate_limits: list[RateLimitWindow] | Unset = UNSET
        if _rate_limits is not UNSET:
            rate_limits = []
            for rate_limits_item_data in _rate_limits:
                rate_limits_item = RateLimitWindow.from_dict(rate_limits_item_data)

                rate_limits.append(rate_limits_item)

        def _parse_refused_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        refused_by = _parse_refused_by(d.pop("refused_by", UNSET))

        def _parse_retry_after_s(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        retry_after_s = _parse_retry_after_s(d.pop("retry_after_s", UNSET))

        def _parse_status(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        status = _parse_status(d.pop("status", UNSET))

        def _parse_ttft_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        ttft_ms = _parse_ttft_ms(d.pop("ttft_ms", UNSET))

        def _parse_usage(data: object) -> None | Unset | Usage:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                usage_type_0 = Usage.from_dict(data)

                return usage_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | Usage, data)

        usage = _parse_usage(d.pop("usage", UNSET))

        model_call_event = cls(
            api=api,
            call=call,
            latency_ms=latency_ms,
            path=path,
            request_bytes=request_bytes,
            response_bytes=response_bytes,
            stream=stream,
            cache_write_1h_tokens=cache_write_1h_tokens,
            cache_write_5m_tokens=cache_write_5m_tokens,
            error=error,
            model=model,
            rate_limits=rate_limits,
            refused_by=refused_by,
            retry_after_s=retry_after_s,
            status=status,
            ttft_ms=ttft_ms,
            usage=usage,
        )

        model_call_event.additional_properties = d
        return model_call_event

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
