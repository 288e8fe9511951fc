from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.raw_stream import RawStream, check_raw_stream
from ..types import UNSET, Unset

T = TypeVar("T", bound="RawEvent")


@_attrs_define
class RawEvent:
    """Body of `raw`: one line the provider printed that agentgate did not
    decode. Nothing is dropped: a line that is not valid UTF-8 keeps its exact
    bytes in `bytes_base64`.

        Attributes:
            line (str): The line without its terminator (`\\n`, or `\\r\\n`). When the bytes are
                not valid UTF-8 this is a lossy rendering (U+FFFD for bad sequences),
                for reading only.
            stream (RawStream): Which output stream of the provider CLI a line came from.

                - `stdout`: Standard output.
                - `stderr`: Standard error.
            bytes_base64 (None | str | Unset): The exact bytes of the line, standard base64 with padding; present
                only when they are not valid UTF-8.
            original_bytes (int | None | Unset): The whole line's length in bytes, present when `truncated`.
            truncated (bool | Unset): The line was longer than the line limit (32 MiB): `line` (and
                `bytes_base64`) hold its first bytes only.
    """

    line: str
    stream: RawStream
    bytes_base64: None | str | Unset = UNSET
    original_bytes: int | None | Unset = UNSET
    truncated: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        line = self.line

        stream: str = self.stream

        bytes_base64: None | str | Unset
        if isinstance(self.bytes_base64, Unset):
            bytes_base64 = UNSET
        else:
            bytes_base64 = self.bytes_base64

        original_bytes: int | None | Unset
        if isinstance(self.original_bytes, Unset):
            original_bytes = UNSET
        else:
            original_bytes = self.original_bytes

        truncated = self.truncated

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "line": line,
                "stream": stream,
            }
        )
        if bytes_base64 is not UNSET:
            field_dict["bytes_base64"] = bytes_base64
        if original_bytes is not UNSET:
            field_dict["original_bytes"] = original_bytes
        if truncated is not UNSET:
            field_dict["truncated"] = truncated

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        line = d.pop("line")

        stream = check_raw_stream(d.pop("stream"))

        def _parse_bytes_base64(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        bytes_base64 = _parse_bytes_base64(d.pop("bytes_base64", UNSET))

        def _parse_original_bytes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        original_bytes = _parse_original_bytes(d.pop("original_bytes", UNSET))

        truncated = d.pop("truncated", UNSET)

        raw_event = cls(
            line=line,
            stream=stream,
            bytes_base64=bytes_base64,
            original_bytes=original_bytes,
            truncated=truncated,
        )

        raw_event.additional_properties = d
        return raw_event

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
