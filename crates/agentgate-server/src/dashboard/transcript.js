// agentgate's dashboard, one run as a transcript: the prompt (from the
// run's request), then its events as they come from GET
// /v1/runs/{id}/events (live while it runs, replayed the same way after):
// assistant messages as Markdown (markdown.js, DOM nodes only), thinking
// collapsed, each tool call with its input and its result, the usage and
// cost of each model call, notices (retries, session recreated, model
// fallback, skipped steps, budget warnings, failover), permission requests
// answerable where they were asked, errors, and the final envelope with a
// copy button; the failover timeline beside it (timeline.js).
//
// The SSE stream is read with fetch (EventSource cannot send an
// Authorization header) and resumed with Last-Event-ID when the
// connection drops. Uses app.js's `$`, `api`, `failed`, `may`,
// workflow.js's `resetWorkflow` and `onWorkflowEvent`, and runs.js's
// `durationText` and `timeCell`.
"use strict";

let openRun = null; // the run shown: see newRun
const LONG_OUTPUT_LINES = 12;
const LONG_OUTPUT_CHARS = 1500;

function newRun(id) {
  return {
    id, abort: new AbortController(), lastId: null, generation: 0,
    assistant: null, // the assistant block text_delta events go on
    said: "", // the last assistant message's text
    lanes: [],
  };
}

function setStatus(status) {
  const el = $("run-status");
  el.textContent = status;
  el.className = "status " + status;
  $("run-cancel").disabled = !(status === "queued" || status === "running");
  // A step's run is cancelled with its workflow, not alone.
  $("run-cancel").hidden = !may("cancel") || !!(openRun && openRun.within);
}

function showUsage(usage) {
  const dl = $("run-usage");
  dl.replaceChildren();
  for (const key of ["input_tokens", "output_tokens", "reasoning_tokens", "total_tokens", "cost_usd"]) {
    if (usage[key] === undefined || usage[key] === null) continue;
    const dt = document.createElement("dt");
    dt.textContent = key.replace(/_/g, " ");
    const dd = document.createElement("dd");
    dd.textContent = String(usage[key]);
    dd.dataset.key = key;
    dl.append(dt, dd);
  }
}

// Show run `id`. `within` is set for a run a workflow's step made (its
// steps view links to it): { workflow, step, kind, command or prompt }.
// Such a run is not a job (GET /v1/runs/{id} does not know it; its
// events do), is cancelled with its workflow, and leads back to it.
async function showRun(id, within) {
  if (openRun) openRun.abort.abort();
  const run = newRun(id);
  run.within = within || null;
  openRun = run;
  $("run-panel").hidden = false;
  $("run-id").textContent = id;
  $("transcript").replaceChildren();
  $("run-usage").replaceChildren();
  resetWorkflow(id);
  drawTimeline(run);
  showWithin(run.within);
  if (run.within) {
    setStatus("running");
    showStep(run.within);
  } else {
    try {
      const view = await api("/v1/runs/" + encodeURIComponent(id));
      if (openRun !== run) return;
      setStatus(view.status);
      showPrompt(view.request || {});
    } catch (e) {
      failed(e);
      return;
    }
  }
  followEvents(run).catch((e) => {
    if (e.name !== "AbortError") failed(e);
  });
}

// The line under the run's title for a step's run: which step of which
// workflow, with a link back to it.
function showWithin(within) {
  const line = $("run-within");
  line.replaceChildren();
  line.hidden = !within;
  if (!within) return;
  line.append("Step ");
  element("code", "", within.step, line);
  line.append(` (${within.kind || "run"}) of workflow `);
  const back = element("button", "link", within.workflow, line);
  back.type = "button";
  back.id = "run-back";
  back.addEventListener("click", () => {
    showRun(within.workflow);
    $("run-title").focus();
  });
}

// What a step's run was asked, as the workflow file writes it: the tool
// and its arguments, or the agent's prompt (before its ${...} are filled).
function showStep(within) {
  if (!within.command && !within.prompt) return;
  const el = item("prompt");
  element("div", "t-who", (within.command ? "Tool" : "Prompt") + " (as the workflow file writes it)", el);
  if (within.command) element("pre", "t-command", within.command, el);
  else element("div", "t-prompt-text", within.prompt, el);
}

// --- the transcript's items -----------------------------------------------------

function item(kind, event) {
  const el = document.createElement("div");
  el.className = "t-item t-" + kind;
  if (event && event.seq !== undefined) el.dataset.seq = String(event.seq);
  if (event && event.attempt) el.dataset.attempt = String(event.attempt);
  $("transcript").appendChild(el);
  return el;
}

function element(tag, className, text, parent) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined && text !== null) el.textContent = String(text);
  if (parent) parent.appendChild(el);
  return el;
}

// A block of text, folded in a <details> when it is long.
function foldable(text, what, parent) {
  const lines = text.split("\n").length;
  if (lines <= LONG_OUTPUT_LINES && text.length <= LONG_OUTPUT_CHARS) {
    element("pre", "t-output", text, parent);
    return;
  }
  const details = element("details", "t-fold", undefined, parent);
  element("summary", "", `${what} (${lines} lines, ${text.length} characters)`, details);
  element("pre", "t-output", text, details);
}

function showPrompt(request) {
  const el = item("prompt");
  element("div", "t-who", "Prompt", el);
  if (typeof request.prompt === "string") {
    element("div", "t-prompt-text", request.prompt, el);
  } else if (request.task !== undefined && request.task !== null) {
    element("pre", "t-output", JSON.stringify(request.task, null, 2), el);
  } else {
    el.remove();
    return;
  }
  const list = (what, names) => (names && names.length ? `${what} ${names.join(", ")}` : "");
  const who = [list("agents", request.agents), list("providers", request.providers),
    request.chain ? "chain " + request.chain : "", request.model ? "model " + request.model : ""].filter(Boolean);
  if (who.length) element("div", "t-meta muted", who.join(" · "), el);
}

// The assistant block text goes on: the open one, or a new one.
function assistantBlock(run, event) {
  if (!run.assistant) {
    const el = item("assistant", event);
    element("div", "t-who", "Assistant" + (event.provider ? ` · ${event.provider}` : ""), el);
    const body = element("div", "t-body", undefined, el);
    run.assistant = { el, body, text: "" };
  }
  return run.assistant;
}

function renderAssistant(run, block) {
  block.body.replaceChildren(renderMarkdown(block.text));
}

// Streamed text is drawn at most every 50 ms (a long answer in many
// pieces is not parsed again for each).
function renderSoon(run, block) {
  if (block.timer) return;
  block.timer = setTimeout(() => {
    block.timer = null;
    if (openRun === run) renderAssistant(run, block);
  }, 50);
}

function toolUse(run, event) {
  run.assistant = null;
  const el = item("tool", event);
  el.dataset.toolId = event.id;
  el.dataset.state = "running";
  const head = element("div", "t-who", undefined, el);
  element("span", "", "Tool ", head);
  element("code", "t-tool-name", event.name, head);
  if (event.class) element("span", "t-tool-class muted", ` ${event.class}`, head);
  const input = event.input;
  // A shell command (`command` or `cmd`, a string or an argv) as the command.
  const key = input && typeof input === "object" && !Array.isArray(input) &&
    ["command", "cmd"].find((k) => typeof input[k] === "string" ||
      (Array.isArray(input[k]) && input[k].every((a) => typeof a === "string")));
  const box = element("div", "t-tool-input", undefined, el);
  if (key) {
    const command = Array.isArray(input[key]) ? input[key].join(" ") : input[key];
    element("pre", "t-command", command, box);
    const rest = Object.assign({}, input);
    delete rest[key];
    if (Object.keys(rest).length) foldable(JSON.stringify(rest, null, 2), "input", box);
  } else {
    foldable(typeof input === "string" ? input : JSON.stringify(input, null, 2), "input", box);
  }
  element("div", "t-tool-result muted", "running…", el);
}

function toolResult(event) {
  const el = document.querySelector(`#transcript .t-tool[data-tool-id="${CSS.escape(event.id)}"]`) ||
    item("tool", event);
  el.dataset.state = event.ok ? "ok" : "failed";
  let result = el.querySelector(".t-tool-result");
  if (!result) result = element("div", "t-tool-result", undefined, el);
  result.className = "t-tool-result";
  result.replaceChildren();
  const head = element("div", "t-result-head " + (event.ok ? "ok" : "failed"), event.ok ? "✓ ok" : "✗ failed", result);
  if (event.exit_code !== undefined && event.exit_code !== null) head.append(` · exit ${event.exit_code}`);
  if (event.truncated) {
    head.append(` · cut to ${event.output.length} of ${event.original_bytes || "?"} bytes`);
  }
  if (event.output) foldable(event.output, "output", result);
}

function usageLine(event) {
  const u = event.usage || {};
  const parts = [`${u.input_tokens || 0} in`, `${u.output_tokens || 0} out`];
  if (u.cache_read_input_tokens) parts.push(`${u.cache_read_input_tokens} cached`);
  if (u.reasoning_tokens) parts.push(`${u.reasoning_tokens} reasoning`);
  if (typeof u.cost_usd === "number") parts.push("$" + u.cost_usd.toFixed(4));
  if (u.estimated) parts.push("estimated");
  const el = item("usage", event);
  el.textContent = (event.scope === "total" ? "attempt total: " : "model call: ") + parts.join(" · ");
}

function modelCall(event) {
  const parts = [`model call ${event.call}`, event.model || "", event.status ? `HTTP ${event.status}` : "no response",
    durationText(event.latency_ms || 0)];
  if (event.usage) parts.push(`${event.usage.input_tokens || 0} in · ${event.usage.output_tokens || 0} out`);
  if (event.error) parts.push(event.error);
  if (event.refused_by) parts.push("refused by " + event.refused_by);
  item("usage", event).textContent = parts.filter(Boolean).join(" · ");
}

// A notice: `kind` is its class (notice, failover, skipped, warn, error).
function notice(event, kind, text) {
  const el = item("notice", event);
  el.dataset.kind = kind;
  el.textContent = text;
  return el;
}

function statusText(event) {
  switch (event.kind) {
    case "retry": {
      const n = event.retry_attempt ? ` ${event.retry_attempt}${event.max_retries ? "/" + event.max_retries : ""}` : "";
      const wait = event.delay_ms ? ` in ${durationText(event.delay_ms)}` : "";
      const http = event.provider_status ? ` (HTTP ${event.provider_status})` : "";
      return `retry${n}${wait}${http}` + (event.detail ? `: ${event.detail}` : "");
    }
    case "compaction":
      return "context compacted" + (event.tokens_before ? ` from ${event.tokens_before} tokens` : "") +
        (event.detail ? `: ${event.detail}` : "");
    case "budget_warning":
      return `budget ${event.budget}: ${event.spent} of ${event.limit} ${event.measure} spent (${Math.round(event.share * 100)}%)`;
    case "timeout_warning":
      return `timeout in ${durationText(event.remaining_ms)} (at ${event.deadline})`;
    case "timeout_extended":
      return `timeout extended by ${durationText(event.extended_by_ms)}: ${durationText(event.remaining_ms)} left`;
    case "failover":
      return `failover: ${event.from} failed (${event.error_type}: ${event.message}); trying ${event.to}`;
    case "skipped":
      return event.message || `skipped ${event.step}`;
    default:
      return event.detail || event.kind;
  }
}

// A step agentgate did not start: its message, then its error type
// (`quota`, `budget`) and when that resets (relative, exact on hover).
function skippedNotice(event) {
  const el = notice(event, "skipped", statusText(event));
  el.dataset.errorType = event.error_type || "";
  const meta = element("span", "t-meta muted", ` · ${event.error_type}`, el);
  if (event.reset_at) {
    meta.append(Date.parse(event.reset_at) > Date.now() ? " · resets " : " · reset ", timeCell(event.reset_at));
  }
}

function statusNotice(event) {
  if (event.kind === "skipped") return skippedNotice(event);
  const text = statusText(event);
  const kind = event.kind === "failover" ? "failover" :
    (event.kind === "budget_warning" || event.kind === "timeout_warning" ? "warn" : "notice");
  notice(event, kind, text);
}

function errorItem(event) {
  const el = item("error", event);
  element("div", "t-who", `Error · ${event.kind}` + (event.recoverable ? " (recoverable)" : ""), el);
  element("div", "t-body", event.message, el);
  const facts = [];
  if (event.exit_code !== undefined && event.exit_code !== null) facts.push(`exit ${event.exit_code}`);
  if (event.provider_status) facts.push(`HTTP ${event.provider_status}`);
  if (event.retry_after_s) facts.push(`retry after ${event.retry_after_s} s`);
  if (event.reset_at) facts.push(`resets ${event.reset_at}`);
  if (facts.length) element("div", "t-meta muted", facts.join(" · "), el);
}

// The final envelope: the answer (or the error), then the whole JSON
// folded, with a copy button.
function resultItem(run, event) {
  run.assistant = null;
  const env = event.envelope || {};
  const el = item("result", event);
  el.dataset.outcome = env.error_type ? "failed" : "succeeded";
  const head = element("div", "t-who", "Result", el);
  const facts = [env.provider, env.model, typeof env.duration_ms === "number" ? durationText(env.duration_ms) : "",
    env.tokens_used && typeof env.tokens_used.cost_usd === "number" ? "$" + env.tokens_used.cost_usd.toFixed(4) : ""];
  element("span", "t-meta muted", " " + facts.filter(Boolean).join(" · "), head);
  if (env.error_type) element("div", "t-result-error", `${env.error_type}: ${env.error || ""}`, el);
  // The answer, unless it is the last message above.
  if (env.response && env.response.trim() !== run.said.trim()) {
    element("div", "t-body t-answer", undefined, el).appendChild(renderMarkdown(env.response));
  } else if (env.response) {
    element("div", "t-meta muted", "The answer is the last message above.", el);
  }
  const json = JSON.stringify(env, null, 2);
  const details = element("details", "t-envelope", undefined, el);
  element("summary", "", "Envelope (JSON)", details);
  const copy = element("button", "t-copy", "Copy", details);
  copy.type = "button";
  copy.addEventListener("click", () => copyText(json, copy));
  element("pre", "t-output", json, details);
}

// Put `text` on the clipboard (navigator.clipboard where the page may,
// else a selected textarea and the copy command); say so on `button`.
async function copyText(text, button) {
  let ok = false;
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      ok = true;
    }
  } catch (e) {
    ok = false;
  }
  if (!ok) {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "offscreen";
    document.body.appendChild(area);
    area.select();
    try {
      ok = document.execCommand("copy");
    } catch (e) {
      ok = false;
    }
    area.remove();
  }
  button.textContent = ok ? "Copied" : "Copy failed";
  button.dataset.copied = String(ok);
  setTimeout(() => { button.textContent = "Copy"; }, 2000);
}

// --- permission requests: a person answers while the run waits -------------
// Each approval_request shows where it came with Allow and Deny; its
// approval_decision (by the policy at once, or by a person, a timeout, a
// cancel) replaces the buttons with the outcome. An answer the run no
// longer waits for is refused by the server (409) and shown as an error.

function addApproval(run, event) {
  run.assistant = null;
  const el = item("approval", event);
  el.dataset.request = event.request_id;
  const what = event.command || (event.paths || []).join(" ") || "";
  element("div", "t-who", "Permission asked", el);
  const line = element("div", "t-approval-line", undefined, el);
  element("code", "", event.tool, line);
  line.append(` (${event.class}) `);
  element("span", "t-approval-what", what, line);
  for (const decision of may("approve") ? ["allow", "deny"] : []) {
    const button = element("button", "", decision === "allow" ? "Allow" : "Deny", line);
    button.type = "button";
    button.dataset.decision = decision;
    button.addEventListener("click", async () => {
      for (const b of el.querySelectorAll("button")) b.disabled = true;
      try {
        await api(`/v1/runs/${encodeURIComponent(run.id)}/approvals/${encodeURIComponent(event.request_id)}`,
          { method: "POST", body: JSON.stringify({ decision }) });
      } catch (e) {
        failed(e);
      }
    });
  }
}

function decideApproval(event) {
  const el = document.querySelector(`#transcript .t-approval[data-request="${CSS.escape(event.request_id)}"]`);
  if (!el) return;
  for (const b of el.querySelectorAll("button")) b.remove();
  el.dataset.decision = event.decision;
  element("span", "decided-" + event.decision,
    `${event.decision} by ${event.by}` + (event.rule ? ` (${event.rule})` : "") +
    (event.message ? `: ${event.message}` : ""), el.querySelector(".t-approval-line"));
}

// --- one event ----------------------------------------------------------------

function onEvent(run, event) {
  onWorkflowEvent(event);
  if (timelineEvent(run, event)) drawTimeline(run);
  switch (event.type) {
    case "start":
      setStatus("running");
      if (event.attempt) {
        notice(event, "attempt", `attempt ${event.attempt} · ${event.provider || ""}` +
          (event.agent ? ` (agent ${event.agent})` : "") + (event.model ? ` · ${event.model}` : ""));
      }
      break;
    case "text_delta": {
      const block = assistantBlock(run, event);
      block.text += event.text;
      run.said = block.text;
      renderSoon(run, block);
      break;
    }
    case "message": {
      // A complete message is authoritative over the deltas that streamed it.
      const block = assistantBlock(run, event);
      block.text = event.text;
      run.said = block.text;
      clearTimeout(block.timer);
      block.timer = null;
      renderAssistant(run, block);
      run.assistant = null;
      break;
    }
    case "thinking": {
      const details = element("details", "t-thinking-fold", undefined, item("thinking", event));
      element("summary", "", "Thinking", details);
      element("div", "t-thinking-text", event.text, details);
      break;
    }
    case "tool_use":
      toolUse(run, event);
      break;
    case "tool_result":
      toolResult(event);
      break;
    case "tool_message":
      notice(event, "notice", "tool: " + JSON.stringify(event.message));
      break;
    case "approval_request":
      addApproval(run, event);
      break;
    case "approval_decision":
      decideApproval(event);
      break;
    case "usage":
      if (event.scope === "total") showUsage(event.usage || {});
      usageLine(event);
      break;
    case "model_call":
      modelCall(event);
      break;
    case "rate_limit":
      if (event.status !== "allowed") {
        notice(event, "warn", `rate limit ${event.status}` + (event.window ? ` (${event.window})` : "") +
          (event.resets_at ? `, resets ${event.resets_at}` : ""));
      }
      break;
    case "status":
      statusNotice(event);
      break;
    case "log":
      if (event.level !== "debug") notice(event, event.level === "info" ? "notice" : event.level, event.message);
      break;
    case "raw": {
      // A line agentgate did not decode: kept, folded.
      const details = element("details", "t-fold", undefined, item("raw", event));
      element("summary", "", `unparsed ${event.stream || "output"} line` + (event.truncated ? " (cut)" : ""), details);
      element("pre", "t-output", String(event.line), details);
      break;
    }
    case "error":
      run.assistant = null;
      errorItem(event);
      break;
    case "cancelled":
      notice(event, "warn", `cancelled (${event.reason}${event.signal ? ", " + event.signal : ""})`);
      break;
    case "result": {
      const env = event.envelope || {};
      resultItem(run, event);
      showUsage(env.tokens_used || {});
      timelineFromEnvelope(run, env);
      drawTimeline(run);
      setStatus(env.error_type === "cancelled" ? "cancelled" : (env.error_type ? "failed" : "succeeded"));
      break;
    }
  }
}

// Read the SSE stream to the result event, resuming after a dropped
// connection from the last event seen.
async function followEvents(run) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const headers = { Accept: "text/event-stream" };
    if (run.lastId !== null) headers["Last-Event-ID"] = String(run.lastId);
    const response = await api(`/v1/runs/${encodeURIComponent(run.id)}/events`,
      { raw: true, headers, signal: run.abort.signal });
    if (!response.ok) throw new Error(`events: HTTP ${response.status}`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let sawResult = false;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        // The server ends the stream after the job's last result.
        if (sawResult) return;
        break;
      }
      buffer += value.replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let id = null;
        let kind = "message";
        const data = [];
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const val = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "id") id = val;
          if (field === "event") kind = val;
          if (field === "data") data.push(val);
        }
        if (!data.length || openRun !== run) continue;
        const body = JSON.parse(data.join("\n"));
        if (kind === "requeued") {
          // The job runs again (a retry, a quota wait): its next run follows.
          setStatus(body.status);
          notice({}, "notice", `requeued: ${body.status}` + (body.waiting_for ? ` (waiting for ${body.waiting_for})` : ""));
          run.assistant = null;
          run.said = "";
          run.generation += 1;
          continue;
        }
        if (kind === "end") {
          // Ended without a result (cancelled while queued, abandoned).
          setStatus(body.status);
          notice({}, "warn", `ended ${body.status} without a result`);
          return;
        }
        if (id !== null) run.lastId = Number(id);
        onEvent(run, body);
        sawResult = body.type === "result";
      }
    }
    await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
  }
}

$("run-close").addEventListener("click", () => {
  if (openRun) openRun.abort.abort();
  openRun = null;
  resetWorkflow(null);
  $("run-panel").hidden = true;
});
$("run-cancel").addEventListener("click", async () => {
  if (!openRun) return;
  try {
    await api(`/v1/runs/${encodeURIComponent(openRun.id)}/cancel`, { method: "POST" });
  } catch (e) {
    failed(e);
  }
});
