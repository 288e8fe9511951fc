// agentgate's dashboard, a workflow run as its steps. transcript.js hands
// each event of the run shown to onWorkflowEvent; the steps are drawn
// from the definition in the run's first workflow_state (every step
// `pending`, a parallel group's members side by side inside it), then
// kept by the task events:
//   task_submitted  the step is ready (its payload: a decision's choices)
//   task_started    a try began: its run, the step's start time
//   task_progress   an event of that run (a tool's progress line)
//   task_error      a try failed (retrying, or the step failed)
//   task_done       the step ended: status, tries, every run, outcome
// So the view is live while the workflow runs and the same when its
// events are replayed. Each step shows its tries, its duration (ticking
// while it runs), why it ended, and a link to each run it made, which
// opens that run's transcript (showRun with the workflow to go back to).
// A decision shows the question the tool asked, the choices and the
// answer. Uses app.js's `$`, runs.js's `durationText` and transcript.js's
// `showRun` and `element`.
"use strict";

let flow = null; // the workflow shown: see resetWorkflow

const STEP_KINDS = ["tool", "agent", "parallel", "decision"];

function resetWorkflow(runId) {
  if (flow) clearInterval(flow.ticker);
  flow = { runId, steps: new Map(), ticker: null, final: false };
  $("run-steps").replaceChildren();
  $("run-steps-state").textContent = "";
  $("run-workflow").hidden = true;
}

// The step `id`, drawn under its group (or at the top) the first time.
function stepOf(id, kind, group) {
  let step = flow.steps.get(id);
  if (step) {
    if (kind && step.kind === "step") setKind(step, kind);
    return step;
  }
  const li = document.createElement("li");
  li.className = "step";
  li.dataset.step = id;
  const head = element("div", "step-head", undefined, li);
  element("span", "step-label", id, head);
  element("span", "step-kind muted", "", head);
  element("span", "status", "", head);
  element("span", "step-meta muted", "", head);
  const note = element("div", "step-note muted", "", li);
  note.hidden = true;
  element("div", "step-runs", "", li).hidden = true;
  step = { id, li, kind: "step", group, status: "", tries: 0, started: null, ended: null,
    runs: [], note: "", progress: "", payload: null, def: null, asked: null, answer: null };
  flow.steps.set(id, step);
  const parent = group ? stepOf(group, "parallel", null) : null;
  (parent ? groupList(parent) : $("run-steps")).appendChild(li);
  setKind(step, kind || "step");
  return step;
}

function groupList(step) {
  let list = step.li.querySelector(":scope > .step-group");
  if (!list) list = element("ol", "step-group", undefined, step.li);
  return list;
}

function setKind(step, kind) {
  step.kind = kind;
  step.li.dataset.kind = kind;
  if (kind === "decision" && !step.li.querySelector(":scope > .step-decision")) {
    const box = element("div", "step-decision", undefined, step.li);
    box.hidden = true;
  }
  drawStep(step);
}

function kindOf(def) {
  return STEP_KINDS.find((k) => def[k] != null) || "step";
}

// The definition's steps, all pending, before any ran.
function planSteps(defs, group) {
  for (const def of defs || []) {
    const step = stepOf(def.id, kindOf(def), group);
    step.payload = step.payload || payloadOf(def);
    step.def = def;
    if (!step.status) step.status = "pending";
    drawStep(step);
    if (def.parallel) planSteps(def.parallel.steps, def.id);
  }
}

// What task_submitted's payload would say, from the definition.
function payloadOf(def) {
  if (def.tool) return { tool: def.tool, args: def.args || [] };
  if (def.decision) return { for: def.decision.for, choices: def.decision.choices || [] };
  if (def.parallel) return { max_concurrency: def.parallel.max_concurrency };
  if (def.agent) return { prompt: def.agent.prompt };
  return null;
}

function kindText(step) {
  const p = step.payload || {};
  switch (step.kind) {
    case "tool": return p.tool ? `tool ${p.tool}` : "tool";
    case "decision": return p.for ? `decision for ${p.for}` : "decision";
    case "parallel": return p.max_concurrency ? `parallel, ${p.max_concurrency} at a time` : "parallel";
    default: return step.kind;
  }
}

const STATUS_CLASS = { ok: "succeeded", failed: "failed", running: "running", waiting: "running" };

function elapsed(step, now) {
  if (step.started === null) return "";
  const end = step.ended !== null ? step.ended : (flow.final ? null : now);
  if (end === null) return "";
  const text = durationText(Math.max(0, end - step.started));
  return step.ended !== null ? text : text + " so far";
}

function drawStep(step) {
  const li = step.li;
  li.dataset.status = step.status;
  li.querySelector(":scope > .step-head > .step-kind").textContent = `(${kindText(step)})`;
  const badge = li.querySelector(":scope > .step-head > .status");
  badge.textContent = step.status;
  badge.className = "status " + (STATUS_CLASS[step.status] || step.status);
  const tries = !step.tries ? "" : (step.tries === 1 ? "1 try" : `${step.tries} tries`);
  const meta = [tries, elapsed(step, Date.now())].filter(Boolean).join(" · ");
  li.querySelector(":scope > .step-head > .step-meta").textContent = meta;
  const note = li.querySelector(":scope > .step-note");
  const text = [step.note, step.status === "running" ? step.progress : ""].filter(Boolean).join(" · ");
  note.textContent = text;
  note.hidden = !text;
  drawRuns(step);
  if (step.kind === "decision") drawDecision(step);
}

// A link (a button) to each run the step made, opening its transcript.
function drawRuns(step) {
  const box = step.li.querySelector(":scope > .step-runs");
  box.hidden = !step.runs.length;
  if (box.childElementCount === step.runs.length) return;
  box.replaceChildren();
  for (const run of step.runs) {
    const link = element("button", "link step-run",
      `try ${run.attempt || "?"} · ${run.kind || "run"} run`, box);
    link.type = "button";
    link.dataset.run = run.id;
    link.title = run.id;
    link.addEventListener("click", () => {
      showRun(run.id, Object.assign({ workflow: flow.runId, step: step.id, kind: run.kind },
        askedOf(step, run.kind)));
      $("run-title").focus();
    });
  }
}

// What a step's run of `kind` was asked, as the workflow file writes it
// (before its ${...} are filled): { command } for a tool, { prompt } for
// an agent. A decision's runs are its agent's and its tool step's again.
function askedOf(step, kind) {
  const def = step.def || {};
  const d = def.decision;
  if (kind === "agent") {
    const agent = def.agent || (d && d.agent) || {};
    return typeof agent.prompt === "string" ? { prompt: agent.prompt } : {};
  }
  const asker = d ? (flow.steps.get(d.for) || {}).def || {} : def;
  const tool = asker.tool || (step.payload && step.payload.tool);
  const args = (d ? d.args : def.args) || (step.payload && step.payload.args) || [];
  return tool ? { command: [tool].concat(args).join(" ") } : {};
}

function addRun(step, id, kind, attempt) {
  if (!id || step.runs.some((r) => r.id === id)) return;
  step.runs.push({ id, kind, attempt });
}

// A decision: the question its tool asked, the choices, the answer.
function drawDecision(step) {
  const box = step.li.querySelector(":scope > .step-decision");
  if (!box) return;
  const p = step.payload || {};
  const asker = p.for ? flow.steps.get(p.for) : null;
  const asked = step.asked || (asker && asker.asked);
  box.replaceChildren();
  box.hidden = !asked && !step.answer;
  if (asked) {
    const q = element("div", "step-question", undefined, box);
    element("span", "muted", "Asked: ", q);
    element("code", "", asked.action || "", q);
    if (asked.context !== undefined && asked.context !== null) {
      element("span", "step-context", " " + JSON.stringify(asked.context), q);
    }
  }
  if (p.choices && p.choices.length) {
    const c = element("div", "step-choices", undefined, box);
    element("span", "muted", "Choices: ", c);
    c.append(p.choices.join(", "));
  }
  if (step.answer) {
    const a = element("div", "step-answer", undefined, box);
    element("span", "muted", "Answer: ", a);
    element("strong", "step-choice", String(step.answer.choice ?? JSON.stringify(step.answer)), a);
    if (step.answer.reason) a.append(` (${step.answer.reason})`);
  } else if (step.status === "waiting") {
    element("div", "step-answer muted", "waiting for the agent's answer", box);
  }
}

// The nested event of a step's run: a tool's progress line is shown.
function stepProgress(step, inner) {
  if (!inner) return;
  const m = inner.type === "tool_message" ? inner.message : null;
  if (m && m.type === "progress") {
    step.progress = [m.pct !== undefined ? `${m.pct}%` : "", m.msg || ""].filter(Boolean).join(" ");
  }
}

function tick() {
  let running = false;
  for (const step of flow.steps.values()) {
    if (step.started !== null && step.ended === null) {
      running = true;
      drawStep(step);
    }
  }
  if (!running || flow.final) {
    clearInterval(flow.ticker);
    flow.ticker = null;
  }
}

function onWorkflowEvent(event) {
  if (!flow) return;
  const at = Date.parse(event.ts);
  if (event.type === "workflow_state") {
    $("run-workflow").hidden = false;
    const execution = event.execution ? ` (execution ${event.execution})` : "";
    $("run-steps-state").textContent = event.state + execution;
    flow.final = ["completed", "failed", "cancelled"].includes(event.state);
    if (event.definition && !flow.steps.size) planSteps(event.definition.steps, null);
    if (event.state === "waiting_ai" && event.step && flow.steps.has(event.step)) {
      const step = flow.steps.get(event.step);
      step.status = "waiting";
      drawStep(step);
    }
    if (flow.final) for (const step of flow.steps.values()) drawStep(step);
    return;
  }
  if (!event.task_id || !event.type.startsWith("task_")) return;
  const step = stepOf(event.task_id, event.kind, event.group);
  switch (event.type) {
    case "task_submitted":
      if (event.payload) step.payload = event.payload;
      step.status = "submitted";
      break;
    case "task_started":
      if (step.started === null && !Number.isNaN(at)) step.started = at;
      step.status = "running";
      step.tries = Math.max(step.tries, event.step_attempt || 0);
      step.note = "";
      addRun(step, event.child_run_id, event.child_kind, event.step_attempt);
      if (!flow.ticker) flow.ticker = setInterval(tick, 1000);
      break;
    case "task_progress":
      stepProgress(step, event.event);
      break;
    case "task_error": {
      const retrying = event.retry_in_ms !== undefined && event.retry_in_ms !== null;
      step.status = retrying ? "retrying" : "failed";
      step.note = `try ${event.step_attempt}: ` + [event.code, event.message].filter(Boolean).join(" ") +
        (retrying ? `; again in ${durationText(event.retry_in_ms)}` : "");
      break;
    }
    case "task_done": {
      step.status = event.status;
      step.tries = event.attempts;
      if (!Number.isNaN(at)) step.ended = at;
      step.note = event.reason || (event.status === "ok" ? "" : step.note);
      const outcome = event.outcome || {};
      if (outcome.action) step.asked = outcome.action;
      if (step.kind === "decision" && outcome.output) step.answer = outcome.output;
      (event.child_run_ids || []).forEach((id, i) => {
        const known = step.runs.find((r) => r.id === id);
        if (!known) addRun(step, id, null, i + 1);
      });
      // A tool's question is shown on the decision that answers it.
      for (const other of flow.steps.values()) {
        if (other.kind === "decision" && other.payload && other.payload.for === step.id) drawStep(other);
      }
      break;
    }
    default:
      return;
  }
  drawStep(step);
}
