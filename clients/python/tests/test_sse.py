"""The SSE parser on its own: the server's framing, and what any server may
send (CRLF and CR line ends, a line split across reads, multi-line data,
comments, fields without a space, unknown fields)."""

from agentgate_client import SseParser


def parse(*chunks: bytes):
    parser = SseParser()
    out = []
    for chunk in chunks:
        out.extend(parser.feed(chunk))
    return out


def test_the_servers_messages_with_ids_events_and_keep_alives():
    messages = parse(b'id: 0\ndata: {"seq":0}\n\n: keep-alive\n\nevent: end\ndata: {"status":"cancelled"}\n\n')
    assert [(m.id, m.event, m.data, m.comments) for m in messages] == [
        ("0", None, '{"seq":0}', []),
        (None, None, "", ["keep-alive"]),
        (None, "end", '{"status":"cancelled"}', []),
    ]


def test_line_ends_and_a_message_split_across_reads():
    # CRLF split between two reads, a lone CR, then LF.
    messages = parse(b"id: 7\r", b"\ndata: a\rdata:b\n", b"\n")
    assert [(m.id, m.data) for m in messages] == [("7", "a\nb")]


def test_a_message_waits_for_its_blank_line_and_multibyte_text_survives_a_split():
    text = "héllo".encode()
    parser = SseParser()
    assert parser.feed(b"data: " + text[:2]) == []
    assert parser.feed(text[2:] + b"\n") == []
    [message] = parser.feed(b"\n")
    assert message.data == "héllo"


def test_unknown_fields_and_retry_are_ignored():
    messages = parse(b"retry: 10\nfoo: bar\ndata: x\n\n")
    assert [(m.id, m.event, m.data) for m in messages] == [(None, None, "x")]
