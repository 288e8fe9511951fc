/**
 * The TypeScript client against a real `agentgate serve` that
 * crates/agentgate/tests/suite/client_libraries.rs starts: its URL and
 * token come in AGENTGATE_URL and AGENTGATE_TOKEN, and its config has two
 * agents: `quick`, a stand-in for Claude Code that prints the messages
 * `one` and `two` and answers `done` (with `hold` in the prompt it waits up
 * to a minute after `one`), and `asker`, the real Claude Code against
 * `agentgate fake-llm` in permission mode `ask`, scripted to write one file
 * when the prompt says WRITE. Without the variables every test fails.
 */

import assert from "node:assert/strict";
import { before, describe, test } from "node:test";

import { Agentgate, AgentgateError, RunTimeoutError, unwrap, type RunEvent, type StreamItem } from "../src/index.js";
import { CuttingProxy } from "./cutting-proxy.js";

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(
      `${name} is not set: these tests run against a real \`agentgate serve\` ` +
        "(cargo test -p agentgate --test all -- suite::client_libraries)",
    );
  }
  return value;
}

const url = required("AGENTGATE_URL");
const token = required("AGENTGATE_TOKEN");
const client = new Agentgate(url, token);

async function collect(stream: AsyncIterable<StreamItem>): Promise<StreamItem[]> {
  const items: StreamItem[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

function events(items: StreamItem[]): RunEvent[] {
  return items.filter((i): i is RunEvent => i.kind === "event");
}

async function submit(prompt: string, agents = ["quick"]): Promise<string> {
  const accepted = await client.submit({ prompt, agents });
  assert.ok(accepted.run_id);
  assert.ok(["queued", "running"].includes(String(accepted.status)), JSON.stringify(accepted));
  return accepted.run_id;
}

async function rejection(promise: Promise<unknown>): Promise<AgentgateError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof AgentgateError, `not an AgentgateError: ${String(e)}`);
    return e;
  }
  assert.fail("no error");
}

describe("an ended run", () => {
  let runId = "";
  let items: RunEvent[] = [];

  before(async () => {
    runId = await submit("say hello");
    const all = await collect(client.events(runId));
    assert.ok(all.every((i) => i.kind === "event"), JSON.stringify(all));
    items = events(all);
  });

  test("submit and follow the events to the end", async () => {
    const types = items.map((e) => e.data.type);
    assert.equal(types[0], "start", String(types));
    assert.equal(types.at(-1), "result", String(types));
    assert.deepEqual(
      items.filter((e) => e.data.type === "message").map((e) => e.data["text"]),
      ["one", "two"],
    );
    assert.deepEqual(
      items.map((e) => e.seq),
      items.map((_, i) => i),
    );
    assert.ok(items.every((e) => e.data["run_id"] === runId));
    const envelope = items.at(-1)?.data["envelope"] as { response?: string };
    assert.equal(envelope.response, "done");
    const run = await client.waitForRun(runId, { timeoutMs: 60_000 });
    assert.equal(run.status, "succeeded");
    assert.equal((run.envelope as { response?: string } | null)?.response, "done");
  });

  test("a resume from a mid-stream id gives only the later events", async () => {
    const middle = items[Math.floor(items.length / 2)]?.seq;
    assert.ok(middle !== undefined);
    const stream = client.events(runId, { lastEventId: middle });
    const later = events(await collect(stream));
    const expected = items.filter((e) => e.seq !== undefined && e.seq > middle);
    assert.deepEqual(
      later.map((e) => e.seq),
      expected.map((e) => e.seq),
    );
    assert.deepEqual(
      later.map((e) => e.text),
      expected.map((e) => e.text),
    );
    assert.equal(stream.connections, 1);
    assert.equal(stream.lastEventId, items.at(-1)?.seq);
  });

  test("a token without the scope is a typed 403", async () => {
    // An API token made through the typed route, with `read` only.
    const created = unwrap(await client.api.POST("/v1/tokens", { body: { name: "ts-reader", scopes: ["read"] } }));
    assert.ok(created.token.startsWith("agt_"));
    const reader = new Agentgate(url, created.token);
    assert.equal((await reader.getRun(runId)).status, "succeeded");
    for (const attempt of [() => reader.submit({ prompt: "hi", agents: ["quick"] }), () => reader.cancel(runId)]) {
      const error = await rejection(attempt());
      assert.equal(error.status, 403);
      assert.equal(error.type, "forbidden");
    }
  });

  test("a bad token is a typed 401", async () => {
    const wrong = new Agentgate(url, "not-the-token");
    for (const attempt of [
      () => wrong.getRun(runId),
      () => wrong.submit({ prompt: "hi", agents: ["quick"] }),
      () => collect(wrong.events(runId)),
    ]) {
      const error = await rejection(attempt());
      assert.equal(error.status, 401);
      assert.equal(error.type, "unauthorized");
    }
    // The right token, an unknown run: 404, typed the same way.
    const error = await rejection(client.getRun("r-no-such-run"));
    assert.equal(error.status, 404);
  });
});

test("cancel a running run", async () => {
  const runId = await submit("hold until cancelled");
  const seen: StreamItem[] = [];
  for await (const item of client.events(runId)) {
    seen.push(item);
    // The stand-in prints `one`, then holds: it is running.
    if (item.kind === "event" && item.data.type === "message") {
      assert.equal(item.data["text"], "one");
      const accepted = await client.cancel(runId);
      assert.equal(accepted.cancel_requested, true);
      assert.equal(accepted.status, "running");
    }
  }
  const types = events(seen).map((e) => e.data.type);
  assert.ok(types.includes("cancelled"), String(types));
  assert.equal(types.at(-1), "result", String(types));
  assert.ok(!events(seen).some((e) => e.data["text"] === "two"));
  const run = await client.waitForRun(runId, { timeoutMs: 60_000 });
  assert.equal(run.status, "cancelled");
  assert.equal(run.cancel_requested, true);
});

test("a dropped connection is resumed from the last id", async () => {
  // A run that holds after its message `one`: when the connection is cut
  // there, the server has sent nothing later, so what follows can only
  // come through the resumed stream.
  const runId = await submit("hold for the cut");
  const proxy = await CuttingProxy.start(url);
  let heldAt: number | undefined;
  const got: RunEvent[] = [];
  const throughProxy = new Agentgate(proxy.url, token);
  const stream = throughProxy.events(runId, { backoffMs: 50 });
  try {
    for await (const item of stream) {
      assert.equal(item.kind, "event");
      if (item.kind !== "event") continue;
      got.push(item);
      if (item.data.type === "message") {
        heldAt = item.seq;
        proxy.cut();
        await client.cancel(runId);
      }
    }
  } finally {
    await proxy.close();
  }
  // Every event once, in order: the ones before the cut, then the rest of
  // the run (its cancel and result) from the second connection.
  assert.deepEqual(
    got.map((e) => e.seq),
    got.map((_, i) => i),
  );
  const types = got.map((e) => e.data.type);
  assert.equal(types.indexOf("message"), heldAt, String(types));
  assert.ok(types.includes("cancelled"), String(types));
  assert.equal(types.at(-1), "result", String(types));
  assert.equal(stream.connections, 2);
  const eventRequests = proxy.requests.filter((r) => (r.split("\r\n", 1)[0] ?? "").includes("/events"));
  assert.equal(eventRequests.length, 2, JSON.stringify(proxy.requests));
  assert.ok(!eventRequests[0]?.toLowerCase().includes("last-event-id"));
  assert.ok(eventRequests[1]?.toLowerCase().includes(`last-event-id: ${heldAt}\r\n`), eventRequests[1]);
  assert.equal((await client.waitForRun(runId, { timeoutMs: 60_000 })).status, "cancelled");
});

test("cancelling a queued run ends its stream with end", async () => {
  const accepted = await client.submit({ prompt: "later", agents: ["quick"], not_before: "2999-01-01T00:00:00Z" });
  assert.equal(accepted.status, "queued");
  await client.cancel(accepted.run_id);
  const items = await collect(client.events(accepted.run_id));
  assert.equal(items.length, 1, JSON.stringify(items));
  assert.equal(items[0]?.kind, "end");
  assert.equal(items[0]?.data["status"], "cancelled");
});

test("answer an approval", async () => {
  const runId = await submit("please WRITE a file", ["asker"]);
  const asked: string[] = [];
  const decided: [unknown, unknown, unknown][] = [];
  for await (const item of client.events(runId)) {
    if (item.kind !== "event") continue;
    if (item.data.type === "approval_request") {
      const requestId = String(item.data["request_id"]);
      asked.push(requestId);
      // The request is answerable once the run lists it.
      const deadline = Date.now() + 60_000;
      while (!(await client.pendingApprovals(runId)).includes(requestId)) {
        assert.ok(Date.now() < deadline, "the request never became pending");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const answered = await client.answer(runId, requestId, { decision: "allow" });
      assert.equal(answered.decision, "allow");
      // Answered once: a second answer is refused.
      const refused = await rejection(client.answer(runId, requestId, { decision: "deny" }));
      assert.equal(refused.status, 409);
    } else if (item.data.type === "approval_decision") {
      decided.push([item.data["request_id"], item.data["decision"], item.data["by"]]);
    }
  }
  assert.equal(asked.length, 1, String(asked));
  assert.deepEqual(decided, [[asked[0], "allow", "human"]]);
  const run = await client.waitForRun(runId, { timeoutMs: 150_000 });
  const envelope = run.envelope as { response?: string; approvals?: { asked?: number; allowed?: number } } | null;
  assert.equal(run.status, "succeeded", JSON.stringify(envelope));
  assert.equal(envelope?.response, "done");
  assert.equal(envelope?.approvals?.asked, 1);
  assert.equal(envelope?.approvals?.allowed, 1);
  assert.deepEqual(await client.pendingApprovals(runId), []);
});

test("waitForRun gives up at its timeout", async () => {
  const runId = await submit("hold for the timeout");
  await assert.rejects(client.waitForRun(runId, { timeoutMs: 1_000 }), RunTimeoutError);
  await client.cancel(runId);
  assert.equal((await client.waitForRun(runId, { timeoutMs: 60_000 })).status, "cancelled");
});
