/**
 * Following a run's events: `GET /v1/runs/{id}/events` as an async
 * iterator of protocol events that survives a dropped connection.
 *
 * The server sends one message per protocol event (`id:` its `seq`,
 * `data:` its JSON line), ends the stream after the run's final `result`
 * event, and sends `event: requeued` (no id) between two runs of a job
 * that runs again (a retry, a quota wait, a restart; ids keep increasing
 * across them) and `event: end` (no id; data: the run's status, error and
 * envelope) when a run ended without a `result`.
 *
 * So the stream is over after an `end` message, or when the connection
 * closes after a `result` event and `GET /v1/runs/{id}` says the run is no
 * longer queued or running. Any other close, a broken connection, or
 * silence past `silenceMs` (the server sends a keep-alive every 15 s)
 * reconnects with `Last-Event-ID` set to the last event's id: the server
 * sends only later events, and an event already seen is dropped anyway.
 * Reconnecting waits 250 ms, doubling, and gives up with
 * `StreamBrokenError` after `reconnects` tries in a row without an event.
 */

import type { Agentgate } from "./client.js";
import { AgentgateError, RunTimeoutError } from "./client.js";
import { SseParser, type SseMessage } from "./sse.js";

/** A protocol event: its `seq` (the message id), its JSON line, and the line parsed. */
export interface RunEvent {
  kind: "event";
  seq: number | undefined;
  text: string;
  /** The event (`data.type`: `start`, `message`, `result`, ...). */
  data: { type?: string; [key: string]: unknown };
}

/** A job's run ended and the job runs again: the job's state. */
export interface Requeued {
  kind: "requeued";
  data: Record<string, unknown>;
}

/** The run ended without a `result` event: its status, error and envelope. Nothing follows. */
export interface End {
  kind: "end";
  data: Record<string, unknown>;
}

export type StreamItem = RunEvent | Requeued | End;

export interface RunEventsOptions {
  /** Start after this id (an earlier stream's last `seq`). */
  lastEventId?: number;
  /** Silence longer than this reconnects (default 60 s). */
  silenceMs?: number;
  /** Reconnects in a row without an event before giving up (default 5). */
  reconnects?: number;
  /** The first wait before reconnecting, doubling (default 250 ms). */
  backoffMs?: number;
  /** A `Date.now()` value: past it, `RunTimeoutError`. */
  deadline?: number | undefined;
}

/** The stream could not be followed to the run's end. */
export class StreamBrokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StreamBrokenError";
  }
}

/** Why a connection's read was aborted. */
type Abort = "silence" | "deadline";

/** A run's events, in order, each once, to the end of the run (or job). */
export class RunEvents implements AsyncIterable<StreamItem> {
  /** The last event id received. */
  lastEventId: number | undefined;
  /** How many requests it took. */
  connections = 0;
  private readonly silenceMs: number;
  private readonly reconnects: number;
  private readonly backoffMs: number;
  private readonly deadline: number | undefined;

  constructor(
    private readonly client: Agentgate,
    readonly runId: string,
    options: RunEventsOptions = {},
  ) {
    this.lastEventId = options.lastEventId;
    this.silenceMs = options.silenceMs ?? 60_000;
    this.reconnects = options.reconnects ?? 5;
    this.backoffMs = options.backoffMs ?? 250;
    this.deadline = options.deadline;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamItem> {
    let failures = 0;
    for (;;) {
      let afterResult = false;
      try {
        for await (const message of this.connect()) {
          this.checkDeadline();
          const item = this.accept(message);
          if (!item) continue;
          if (item.kind === "end") {
            yield item;
            return;
          }
          if (item.kind === "event") {
            failures = 0;
            afterResult = item.data.type === "result";
          } else {
            afterResult = false;
          }
          yield item;
        }
      } catch (e) {
        // An API error (401, 404, ...) is the answer; a broken, silent or
        // reset connection is connected again.
        if (e instanceof AgentgateError || e instanceof StreamBrokenError || e instanceof RunTimeoutError) throw e;
      }
      this.checkDeadline();
      if (afterResult && (await this.runIsOver())) return;
      if (failures >= this.reconnects) {
        throw new StreamBrokenError(
          `the event stream of ${this.runId} ended ${failures} times in a row before the run's end`,
        );
      }
      await sleep(this.backoffMs * 2 ** failures);
      failures += 1;
    }
  }

  private checkDeadline(): void {
    if (this.deadline !== undefined && Date.now() > this.deadline) {
      throw new RunTimeoutError(`${this.runId} did not end before the deadline`);
    }
  }

  /** One connection's messages; throws when it breaks or goes silent. */
  private async *connect(): AsyncGenerator<SseMessage> {
    const controller = new AbortController();
    let aborted: Abort | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(timer);
      let wait = this.silenceMs;
      let why: Abort = "silence";
      if (this.deadline !== undefined && this.deadline - Date.now() < wait) {
        wait = Math.max(0, this.deadline - Date.now());
        why = "deadline";
      }
      timer = setTimeout(() => {
        aborted = why;
        controller.abort();
      }, wait);
    };
    this.connections += 1;
    arm();
    try {
      const header: { "Last-Event-ID"?: number } = {};
      if (this.lastEventId !== undefined) header["Last-Event-ID"] = this.lastEventId;
      const { data, error, response } = await this.client.api.GET("/v1/runs/{id}/events", {
        params: { path: { id: this.runId }, header },
        headers: { Accept: "text/event-stream" },
        parseAs: "stream",
        signal: controller.signal,
      });
      if (!response.ok || !data) throw AgentgateError.of(response.status, error);
      const parser = new SseParser();
      const reader = data.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          arm();
          yield* parser.feed(value);
        }
      } finally {
        reader.releaseLock();
      }
    } catch (e) {
      if (aborted === "deadline") throw new RunTimeoutError(`${this.runId} did not end before the deadline`);
      throw e;
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
  }

  private accept(message: SseMessage): StreamItem | undefined {
    if (message.event === "requeued") return { kind: "requeued", data: jsonOrEmpty(message.data) };
    if (message.event === "end") return { kind: "end", data: jsonOrEmpty(message.data) };
    if ((message.event !== undefined && message.event !== "message") || message.data === "") return undefined;
    let seq: number | undefined;
    if (message.id !== undefined) {
      seq = Number(message.id);
      if (!Number.isSafeInteger(seq)) {
        throw new StreamBrokenError(`the server sent an event id that is not a number: ${JSON.stringify(message.id)}`);
      }
      // Seen before the connection dropped.
      if (this.lastEventId !== undefined && seq <= this.lastEventId) return undefined;
      this.lastEventId = seq;
    }
    return { kind: "event", seq, text: message.data, data: JSON.parse(message.data) as RunEvent["data"] };
  }

  /** After a `result`: whether the run (or its job) is final. */
  private async runIsOver(): Promise<boolean> {
    try {
      const run = await this.client.getRun(this.runId);
      return !["queued", "running"].includes(String(run.status));
    } catch (e) {
      // Not a job of the queue (a run `agentgate run` wrote): its `result` is its end.
      return e instanceof AgentgateError && e.status === 404;
    }
  }
}

function jsonOrEmpty(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { value };
  } catch {
    return {};
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
