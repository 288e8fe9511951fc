/**
 * `Agentgate`: an openapi-fetch client over the generated `paths` (every
 * route typed from docs/openapi.json) with the bearer token, an error
 * answer thrown as `AgentgateError`, the run operations by name, event
 * following (`events.ts`) and waiting for a run's end.
 *
 * Any route can be called through `.api` (`agentgate.api.GET("/v1/usage",
 * ...)`), typed as the document says.
 */

import createClient, { type Client } from "openapi-fetch";

import { RunEvents, type RunEventsOptions } from "./events.js";
import type { paths } from "./generated/schema.js";

/** The body of `POST /v1/runs`. */
export type RunRequest = NonNullable<paths["/v1/runs"]["post"]["requestBody"]>["content"]["application/json"];
/** The answer of `POST /v1/runs` and of a cancel. */
export type RunAccepted = paths["/v1/runs"]["post"]["responses"][201]["content"]["application/json"];
/** One run: `GET /v1/runs/{id}`. */
export type RunView = paths["/v1/runs/{id}"]["get"]["responses"][200]["content"]["application/json"];
/** A person's answer to an approval request. */
export type ApprovalAnswer = NonNullable<
  paths["/v1/runs/{id}/approvals/{request_id}"]["post"]["requestBody"]
>["content"]["application/json"];

/** The states a run ends in. */
export const FINAL_STATES: readonly string[] = ["succeeded", "failed", "cancelled", "abandoned"];

/**
 * An error answer of the API: its HTTP status and the body's `{"error":
 * {"type", "message", "field"}}` (type `unauthorized` with a 401,
 * `forbidden` with 403, `not_found` with 404, ...).
 */
export class AgentgateError extends Error {
  constructor(
    readonly status: number,
    readonly type: string | undefined,
    message: string,
    readonly field?: string,
  ) {
    super(`${status} ${type ?? "error"}: ${message}`);
    this.name = "AgentgateError";
  }

  /** The error of an answer's status and parsed body. */
  static of(status: number, body: unknown): AgentgateError {
    const detail = (body as { error?: { type?: unknown; message?: unknown; field?: unknown } } | undefined)?.error;
    if (detail && typeof detail === "object") {
      return new AgentgateError(
        status,
        typeof detail.type === "string" ? detail.type : undefined,
        typeof detail.message === "string" ? detail.message : "",
        typeof detail.field === "string" ? detail.field : undefined,
      );
    }
    const text = typeof body === "string" ? body.slice(0, 500) : "no error body";
    return new AgentgateError(status, undefined, text);
  }
}

/** `wait_for_run` or a stream's deadline passed before the run ended. */
export class RunTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RunTimeoutError";
  }
}

export interface AgentgateOptions {
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

/** An openapi-fetch answer: its data, else an `AgentgateError`. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (!result.response.ok || result.data === undefined) {
    throw AgentgateError.of(result.response.status, result.error);
  }
  return result.data;
}

/** A client of one `agentgate serve`: `new Agentgate("http://host:8080", token)`. */
export class Agentgate {
  /** The typed openapi-fetch client, with the token. */
  readonly api: Client<paths>;
  readonly baseUrl: string;

  constructor(baseUrl: string, token: string, options: AgentgateOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    const fetchFn = options.fetch ?? globalThis.fetch;
    this.api = createClient<paths>({
      baseUrl: this.baseUrl,
      headers: { Authorization: `Bearer ${token}` },
      fetch: (request: Request) => fetchFn(request),
    });
  }

  /** `POST /v1/runs`: the accepted run (`run_id`, `status`, ...). */
  async submit(request: RunRequest): Promise<RunAccepted> {
    // openapi-typescript gives the body's `oneOf` (a prompt, a task or a
    // skill) as the shared fields intersected with a union of variants; the
    // compiler cannot relate that type to openapi-fetch's own copy of it,
    // so the (already typed) request is passed through as is.
    return unwrap(await this.api.POST("/v1/runs", { body: request as never }));
  }

  /** `GET /v1/runs/{id}`: the run (`status`, `envelope`, ...). */
  async getRun(runId: string): Promise<RunView> {
    return unwrap(await this.api.GET("/v1/runs/{id}", { params: { path: { id: runId } } }));
  }

  /** `POST /v1/runs/{id}/cancel`: a queued run ends at once, a running one is stopped. */
  async cancel(runId: string): Promise<RunAccepted> {
    return unwrap(await this.api.POST("/v1/runs/{id}/cancel", { params: { path: { id: runId } } }));
  }

  /** `GET /v1/runs/{id}/approvals`: the request ids waiting for an answer. */
  async pendingApprovals(runId: string): Promise<string[]> {
    const pending = unwrap(await this.api.GET("/v1/runs/{id}/approvals", { params: { path: { id: runId } } }));
    return [...pending.pending];
  }

  /** `POST /v1/runs/{id}/approvals/{request_id}`: `allow` or `deny` (with a message for the agent). */
  async answer(runId: string, requestId: string, answer: ApprovalAnswer) {
    return unwrap(
      await this.api.POST("/v1/runs/{id}/approvals/{request_id}", {
        params: { path: { id: runId, request_id: requestId } },
        body: answer,
      }),
    );
  }

  /**
   * The run's events to its end, resumed with `Last-Event-ID` after a
   * dropped connection: `for await (const item of agentgate.events(id))`.
   */
  events(runId: string, options: RunEventsOptions = {}): RunEvents {
    return new RunEvents(this, runId, options);
  }

  /**
   * The run once it ended (succeeded, failed, cancelled or abandoned): its
   * events followed to their end, then the run read (a job that runs again
   * is followed through). `RunTimeoutError` after `timeoutMs`.
   */
  async waitForRun(runId: string, options: { timeoutMs?: number } = {}): Promise<RunView> {
    const deadline = options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
    let stream = this.events(runId, { deadline });
    for (;;) {
      for await (const _ of stream) {
        // Only the end matters.
      }
      const run = await this.getRun(runId);
      if (FINAL_STATES.includes(String(run.status))) return run;
      // The stream ended after a `result` the run outlived (it was queued
      // again just then): follow it on from there.
      await new Promise((resolve) => setTimeout(resolve, 250));
      stream = this.events(runId, { deadline, lastEventId: stream.lastEventId });
    }
  }
}
