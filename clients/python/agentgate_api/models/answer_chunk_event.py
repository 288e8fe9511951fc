from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="AnswerChunkEvent")


@_attrs_define
class AnswerChunkEvent:
    """Body of `answer_chunk`: a readable piece of the answer text as it
    streamed (`text_delta`, or `message` where the CLI gives whole
    messages), cut at a paragraph, sentence or line, never inside a word or
    an open code fence. The chunks of one follower concatenate exactly to
    the text it streamed; they are a view made by the follower that asked
    for them, not events of the run's stored stream (they carry the header
    of the event after which they were cut, its `seq` included).

        Attributes:
            boundary (str): Why it was cut here: `paragraph`, `sentence`, `line`, `word`,
                `size`, `idle`, `message` (a message ended) or `end` (the text ended).
            index (int): The chunk's number in this follower's stream, from 0.
            offset (int): Where the chunk starts in the streamed text, in bytes of UTF-8.
            text (str): The chunk's text.
    """

    boundary: str
    index: int
    offset: int
    text: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        boundary = self.boundary

        index = self.index

        offset = self.offset

        text = self.text

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "boundary": boundary,
                "index": index,
                "offset": offset,
                "text": text,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        boundary = d.pop("boundary")

        index = d.pop("index")

        offset = d.pop("offset")

        text = d.pop("text")

        answer_chunk_event = cls(
            boundary=boundary,
            index=index,
            offset=offset,
            text=text,
        )

        answer_chunk_event.additional_properties = d
        return answer_chunk_event

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
