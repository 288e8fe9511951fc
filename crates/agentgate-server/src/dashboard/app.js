// agentgate's dashboard: plain JavaScript against the /v1 API, no build step.
// The token is asked once and kept in localStorage; every request sends it
// as a bearer token. One run's panel (its transcript and failover
// timeline) is transcript.js and timeline.js.
"use strict";

const TOKEN_KEY = "agentgate.token";
const REFRESH_MS = 2000;
const $ = (id) => document.getElementById(id);

let token = localStorage.getItem(TOKEN_KEY);
let refreshTimer = null;
let runsCursor = null;
// GET /v1/whoami: the token's name, team and scopes. The page offers only
// what they grant (admin grants all, read:all grants read).
let me = { name: "", scopes: [] };
const may = (scope) => me.scopes.includes(scope) || me.scopes.includes("admin") ||
  (scope === "read" && me.scopes.includes("read:all"));

class Unauthorized extends Error {}

async function api(path, options = {}) {
  const headers = Object.assign({ Authorization: "Bearer " + token }, options.headers || {});
  const response = await fetch(path, Object.assign({}, options, { headers }));
  if (response.status === 401) throw new Unauthorized("the server refused the token");
  if (options.raw) return response;
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const e = body && body.error;
    throw new Error(e ? `${e.type}: ${e.message}` : `HTTP ${response.status}`);
  }
  return body;
}

function showLogin(message) {
  clearInterval(refreshTimer);
  $("app").hidden = true;
  $("forget-token").hidden = true;
  $("login").hidden = false;
  $("server-state").textContent = "not connected";
  $("whoami").textContent = "";
  $("login-error").hidden = !message;
  $("login-error").textContent = message || "";
}

async function connect() {
  $("login").hidden = true;
  $("app").hidden = false;
  $("forget-token").hidden = false;
  try {
    me = await api("/v1/whoami");
    // A team's reader's usage report covers its team's runs.
    document.querySelector('[data-view="usage"]').hidden = !may("read");
    $("new-run").hidden = !may("submit");
    $("whoami").textContent = `as ${me.name}` + (me.team ? ` (team ${me.team})` : "") +
      (may("read") ? "" : ": this token cannot read runs");
    if (!may("read")) return;
    await refresh();
    $("server-state").textContent = "connected";
    clearInterval(refreshTimer);
    refreshTimer = setInterval(() => refresh().catch(failed), REFRESH_MS);
  } catch (e) {
    failed(e);
  }
}

function failed(e) {
  if (e instanceof Unauthorized) {
    localStorage.removeItem(TOKEN_KEY);
    showLogin(e.message);
  } else {
    $("server-state").textContent = "error: " + e.message;
  }
}

// --- tables -----------------------------------------------------------------

function cell(value) {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.join(", ");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

// Fill `table` with `rows` (objects) under `columns` ([key, title]).
function fillTable(table, columns, rows, onClick) {
  const head = table.tHead;
  head.replaceChildren();
  const tr = head.insertRow();
  for (const [, title] of columns) {
    const th = document.createElement("th");
    th.textContent = title;
    tr.appendChild(th);
  }
  const body = table.tBodies[0];
  // The row that has the focus keeps it when the rows are drawn again.
  const active = document.activeElement;
  const focused = active && active.parentElement === body ? active.dataset.runId : null;
  body.replaceChildren();
  for (const row of rows) {
    const r = body.insertRow();
    if (onClick) {
      r.className = "clickable";
      r.tabIndex = 0;
      r.addEventListener("click", () => onClick(row));
      r.addEventListener("keydown", (e) => {
        if (e.key === "Enter") onClick(row);
      });
    }
    for (const [key] of columns) {
      const td = r.insertCell();
      const value = typeof key === "function" ? key(row) : row[key];
      if (value instanceof Node) {
        td.appendChild(value);
      } else if (key === "status") {
        const span = document.createElement("span");
        span.className = "status " + cell(value);
        span.textContent = cell(value);
        td.appendChild(span);
      } else {
        td.textContent = cell(value);
      }
    }
    if (row.run_id) r.dataset.runId = row.run_id;
    if (focused && row.run_id === focused) r.focus({ preventScroll: true });
  }
}

// An object of counts ({queued: 2, ...}) as rows of [name, count].
function countRows(counts, nameTitle) {
  return Object.entries(counts || {}).map(([name, n]) => ({ [nameTitle]: name, n }));
}

// --- panels -----------------------------------------------------------------

async function refresh() {
  const [queue, quota, sessions] = await Promise.all([
    api("/v1/queue"),
    api("/v1/quota"),
    api("/v1/sessions"),
  ]);
  renderQueue(queue);
  renderQuota(quota);
  renderSessions(sessions);
  await loadRuns(false);
}

function renderQueue(queue) {
  fillTable($("queue-states"), [["state", "State"], ["n", "Runs"]],
    countRows(queue.counts, "state"));
  const states = ["queued", "running", "succeeded", "failed"];
  fillTable($("queue-providers"),
    [["provider", "Provider"]].concat(states.map((s) => [(row) => row.counts[s] || 0, s])),
    queue.providers || []);
  fillTable($("queue-limits"),
    [[(l) => l.name ? `${l.scope} ${l.name}` : l.scope, "Limit"],
     [(l) => `${l.running} / ${l.max}`, "Running"]],
    queue.limits || []);
}

function renderQuota(quota) {
  fillTable($("quota"),
    [["provider", "Provider"], ["status", "Status"], ["reset_at", "Resets"]],
    quota.providers || []);
}

function renderSessions(sessions) {
  fillTable($("sessions"),
    [["name", "Name"], ["provider", "Provider"], ["turns", "Turns"], ["updated_at", "Updated"]],
    sessions.sessions || []);
}

// The label filter's text as `key=value` labels. Labels are separated by
// spaces; a value holding spaces is quoted (`topic="release notes"` or
// 'single quotes', `\"` and `\\` inside double quotes), or written as is
// when the words after it do not start with `key=` (`topic=release notes`).
function parseLabelFilter(text) {
  // Each word as written (`raw`, quotes kept) and as meant (`text`).
  const words = [];
  let word = null;
  let quote = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      word.raw += c;
      if (c === quote) {
        quote = null;
      } else if (quote === '"' && c === "\\" && i + 1 < text.length) {
        word.raw += text[i + 1];
        word.text += text[++i];
      } else {
        word.text += c;
      }
    } else if (/\s/.test(c)) {
      if (word) words.push(word);
      word = null;
    } else {
      if (!word) word = { raw: "", text: "" };
      word.raw += c;
      if (c === '"' || c === "'") quote = c;
      else word.text += c;
    }
  }
  if (word) words.push(word);
  // A word that does not start with `key=` goes on the value before it.
  const labels = [];
  for (const w of words) {
    if (labels.length && !/^[A-Za-z0-9][A-Za-z0-9._-]*=/.test(w.raw)) {
      labels[labels.length - 1] += " " + w.text;
    } else {
      labels.push(w.text);
    }
  }
  return labels;
}

// The list's query; `now` (ms) places a relative "when" (without it, the
// query is the filter as set, to compare answers with: see whenFilter).
function runQuery(cursor, now) {
  const q = new URLSearchParams({ limit: "50" });
  const status = $("filter-status").value;
  const provider = $("filter-provider").value.trim();
  const session = $("filter-session").value.trim();
  if (status) q.set("status", status);
  if (provider) q.set("provider", provider);
  if (session) q.set("session", session);
  // Each label a `label` parameter (all must match).
  for (const label of parseLabelFilter($("filter-label").value)) {
    q.append("label", label);
  }
  whenFilter(q, now);
  if (cursor) q.set("cursor", cursor);
  return "/v1/runs?" + q.toString();
}

let runRows = [];

// Rows past the first page ("More") stay while the list refreshes: a
// refresh replaces the first page's rows and keeps the older ones after
// them, so the list never jumps back to one page under the reader (those
// older than a sliding "when" window's start now drop out).
let runsFilter = "";

async function loadRuns(more) {
  // The filter as asked: an answer to an older filter (a refresh under
  // way when the filter changed) is dropped, never merged into the new.
  const filter = runQuery(null);
  const query = new URLSearchParams(runQuery(more ? runsCursor : null, Date.now()).split("?")[1]);
  const page = await api("/v1/runs?" + query);
  if (filter !== runQuery(null)) return;
  const rows = page.runs || [];
  if (more) {
    runRows = runRows.concat(rows.filter((r) => !runRows.some((o) => o.run_id === r.run_id)));
    runsCursor = page.next_cursor || null;
  } else if (filter === runsFilter && runRows.length > rows.length) {
    const fresh = new Set(rows.map((r) => r.run_id));
    const since = Date.parse(query.get("since"));
    runRows = rows.concat(runRows.filter((r) =>
      !fresh.has(r.run_id) && !(Date.parse(r.created_at) < since)));
  } else {
    runRows = rows;
    runsCursor = page.next_cursor || null;
  }
  runsFilter = filter;
  // How many times the list was loaded (its tests wait on refreshes).
  $("runs").dataset.loads = String(Number($("runs").dataset.loads || 0) + 1);
  $("runs-more").hidden = !runsCursor;
  fillTable($("runs"), runColumns(Date.now()), runRows, (row) => showRun(row.run_id));
  // The list's first paint, on the page's Performance timeline (what
  // bench-dashboard reads): the frame after it was first filled.
  if (!performance.getEntriesByName("runs-listed").length) {
    requestAnimationFrame(() => {
      if (!performance.getEntriesByName("runs-listed").length) performance.mark("runs-listed");
    });
  }
}

// --- wiring -------------------------------------------------------------------

$("token-form").addEventListener("submit", (e) => {
  e.preventDefault();
  token = $("token-input").value.trim();
  localStorage.setItem(TOKEN_KEY, token);
  $("token-input").value = "";
  connect();
});
$("forget-token").addEventListener("click", () => {
  localStorage.removeItem(TOKEN_KEY);
  token = null;
  showLogin("");
});
$("run-filters").addEventListener("submit", (e) => {
  e.preventDefault();
  loadRuns(false).catch(failed);
});
$("filter-when").addEventListener("change", showWhenInputs);
$("runs-more").addEventListener("click", () => loadRuns(true).catch(failed));

if (token) connect(); else showLogin("");
