/**
 * agentgate's TypeScript client: the types generated from docs/openapi.json
 * (`generated/schema.ts`, never edited: `scripts/gen-clients.sh` rewrites
 * it), requests over openapi-fetch, and what generation does not cover:
 * following a run's events with `Last-Event-ID` resume (`events.ts`, SSE
 * parsing in `sse.ts`) and waiting for a run's end (`client.ts`).
 */

export {
  Agentgate,
  AgentgateError,
  FINAL_STATES,
  RunTimeoutError,
  unwrap,
  type AgentgateOptions,
  type ApprovalAnswer,
  type RunAccepted,
  type RunRequest,
  type RunView,
} from "./client.js";
export {
  RunEvents,
  StreamBrokenError,
  type End,
  type Requeued,
  type RunEvent,
  type RunEventsOptions,
  type StreamItem,
} from "./events.js";
export { SseParser, type SseMessage } from "./sse.js";
export type { components, operations, paths } from "./generated/schema.js";
