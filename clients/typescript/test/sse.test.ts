/**
 * The SSE parser on its own: the server's framing, and what any server may
 * send (CRLF and CR line ends, a line split across reads, multi-line data,
 * comments, fields without a space, unknown fields).
 */

import assert from "node:assert/strict";
import { test } from "node:test";

import { SseParser, type SseMessage } from "../src/index.js";

const bytes = (text: string) => new TextEncoder().encode(text);

function parse(...chunks: Uint8Array[]): SseMessage[] {
  const parser = new SseParser();
  return chunks.flatMap((c) => parser.feed(c));
}

test("the server's messages with ids, events and keep-alives", () => {
  const messages = parse(bytes('id: 0\ndata: {"seq":0}\n\n: keep-alive\n\nevent: end\ndata: {"status":"cancelled"}\n\n'));
  assert.deepEqual(messages, [
    { id: "0", data: '{"seq":0}', comments: [] },
    { data: "", comments: ["keep-alive"] },
    { event: "end", data: '{"status":"cancelled"}', comments: [] },
  ]);
});

test("line ends and a message split across reads", () => {
  // CRLF split between two reads, a lone CR, then LF.
  const messages = parse(bytes("id: 7\r"), bytes("\ndata: a\rdata:b\n"), bytes("\n"));
  assert.deepEqual(
    messages.map((m) => [m.id, m.data]),
    [["7", "a\nb"]],
  );
});

test("a message waits for its blank line and multibyte text survives a split", () => {
  const text = bytes("héllo");
  const parser = new SseParser();
  assert.deepEqual(parser.feed(new Uint8Array([...bytes("data: "), ...text.subarray(0, 2)])), []);
  assert.deepEqual(parser.feed(new Uint8Array([...text.subarray(2), ...bytes("\n")])), []);
  assert.deepEqual(
    parser.feed(bytes("\n")).map((m) => m.data),
    ["héllo"],
  );
});

test("unknown fields and retry are ignored", () => {
  const messages = parse(bytes("retry: 10\nfoo: bar\ndata: x\n\n"));
  assert.deepEqual(
    messages.map((m) => [m.id, m.event, m.data]),
    [[undefined, undefined, "x"]],
  );
});
