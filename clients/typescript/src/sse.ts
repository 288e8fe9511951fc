/**
 * Server-Sent Events: bytes in, messages out (the WHATWG event-stream
 * format: `field: value` lines, a blank line ends a message, `:` starts a
 * comment, `data` lines joined with newlines; CR, LF and CRLF all end a
 * line). No I/O: `events.ts` feeds it what the connection reads.
 */

/** One message; `event` and `id` are undefined when the message has none. */
export interface SseMessage {
  event?: string;
  id?: string;
  data: string;
  /** The comments read since the message before (`keep-alive`). */
  comments: string[];
}

export class SseParser {
  private buffer = "";
  private readonly decoder = new TextDecoder();
  private event: string | undefined;
  private id: string | undefined;
  private data: string[] = [];
  private comments: string[] = [];
  private hasFields = false;

  /** The complete messages that `chunk` finishes. */
  feed(chunk: Uint8Array): SseMessage[] {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    const out: SseMessage[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) return out;
      // A CR at the very end may be the first half of a CRLF.
      if (match[0] === "\r" && match.index === this.buffer.length - 1) return out;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const message = this.line(line);
      if (message) out.push(message);
    }
  }

  private line(line: string): SseMessage | undefined {
    if (line === "") {
      if (!this.hasFields && this.comments.length === 0) return undefined;
      const message: SseMessage = { data: this.data.join("\n"), comments: this.comments };
      if (this.event !== undefined) message.event = this.event;
      if (this.id !== undefined) message.id = this.id;
      this.event = undefined;
      this.id = undefined;
      this.data = [];
      this.comments = [];
      this.hasFields = false;
      return message;
    }
    if (line.startsWith(":")) {
      this.comments.push(line.slice(1).trimStart());
      return undefined;
    }
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (name) {
      case "data":
        this.data.push(value);
        break;
      case "event":
        this.event = value;
        break;
      case "id":
        if (!value.includes("\0")) this.id = value;
        break;
      default:
        return undefined; // `retry` and unknown fields: ignored
    }
    this.hasFields = true;
    return undefined;
  }
}
