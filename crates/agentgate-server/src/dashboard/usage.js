// agentgate's dashboard, the Usage view: what the stored runs spent, drawn
// from GET /v1/usage as inline SVG built by DOM calls (no chart library,
// nothing loaded from elsewhere). Every figure and name from the server is
// set as text or an attribute value, never parsed as markup.
//
// One range (the last 7, 30 or 90 UTC days, today included) is three
// reports: by day and provider (the cost and tokens bars; its totals give
// the runs by outcome and by error type), by month and agent and by month
// and session (summed over the range's months for the top lists).
// Uses app.js's `$`, `api` and `failed` (loaded before this script).
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const SERIES_COLOURS = 8; // .s0 ... .s7 in style.css
const TOP_ROWS = 10;
const DAY_MS = 86400000;
let usageGeneration = 0; // the latest load; an older one's answer is dropped

// --- SVG and formats -----------------------------------------------------------

function svgElement(name, attributes, parent) {
  const el = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes || {})) el.setAttribute(key, String(value));
  if (parent) parent.appendChild(el);
  return el;
}

// A hover text (an SVG <title>) on `el`.
function hoverText(el, text) {
  svgElement("title", {}, el).textContent = text;
}

function svgText(parent, attributes, text) {
  svgElement("text", attributes, parent).textContent = text;
}

function formatUsd(value) {
  return "$" + value.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 4 });
}

function formatUsdAxis(value) {
  return "$" + value.toLocaleString("en-US", { maximumFractionDigits: 2 });
}

function formatCount(value) {
  return value.toLocaleString("en-US");
}

const compactNumber = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });

function formatCountAxis(value) {
  return compactNumber.format(value);
}

// The axis' top (1, 2 or 5 times a power of ten, at least `value`) and its
// number of gridline steps.
function axisScale(value) {
  if (!(value > 0)) return { max: 1, steps: 4 };
  const power = 10 ** Math.floor(Math.log10(value));
  for (const [m, steps] of [[1, 4], [2, 4], [5, 5], [10, 4]]) {
    if (m * power >= value * (1 - 1e-12)) return { max: m * power, steps };
  }
  return { max: 10 * power, steps: 4 };
}

// The last `n` UTC days to today's, as YYYY-MM-DD.
function lastDays(n, now) {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const days = [];
  for (let i = n - 1; i >= 0; i--) days.push(new Date(today - i * DAY_MS).toISOString().slice(0, 10));
  return days;
}

// A group value as shown: runs without one are "(none)".
function groupName(value) {
  return value === null || value === undefined ? "(none)" : String(value);
}

// --- charts ------------------------------------------------------------------------

// Stacked bars: one column per day, one segment per provider with a value.
// `valueOf(day, provider)` is the figure, `detail(day, provider)` the hover
// text's tail. Each segment carries data-day, data-provider, data-value.
function stackedBars(container, { days, providers, valueOf, format, axisFormat, detail, label }) {
  const width = 600, height = 220, left = 58, right = 8, top = 10, bottom = 26;
  const plotWidth = width - left - right, plotHeight = height - top - bottom;
  const totals = days.map((day) => providers.reduce((sum, p) => sum + valueOf(day, p), 0));
  const { max, steps } = axisScale(Math.max(0, ...totals));
  const root = svgElement("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label });
  for (let i = 0; i <= steps; i++) {
    const y = top + plotHeight - (plotHeight * i) / steps;
    svgElement("line", { x1: left, x2: width - right, y1: y, y2: y, class: "grid" }, root);
    svgText(root, { x: left - 6, y: y + 4, class: "axis", "text-anchor": "end" }, axisFormat((max * i) / steps));
  }
  const slot = plotWidth / days.length;
  const barWidth = Math.max(1, slot * 0.72);
  const labelEvery = Math.ceil(days.length / 10);
  days.forEach((day, i) => {
    const x = left + i * slot;
    const column = svgElement("g", { class: "day", "data-day": day, "data-total": totals[i] }, root);
    // The whole column answers a hover with the day's breakdown.
    const hit = svgElement("rect", { x, y: top, width: slot, height: plotHeight, class: "hit" }, column);
    const lines = [`${day}: ${format(totals[i])}`];
    let y = top + plotHeight;
    providers.forEach((provider, j) => {
      const value = valueOf(day, provider);
      if (!(value > 0)) return;
      lines.push(`${provider}: ${format(value)}`);
      const h = (plotHeight * value) / max;
      y -= h;
      const bar = svgElement("rect", {
        x: x + (slot - barWidth) / 2, y, width: barWidth, height: Math.max(h, 0.5),
        class: `bar s${j % SERIES_COLOURS}`,
        "data-day": day, "data-provider": provider, "data-value": value,
      }, column);
      hoverText(bar, `${day} ${provider}: ${format(value)}${detail ? detail(day, provider) : ""}`);
    });
    hoverText(hit, lines.join("\n"));
    if ((days.length - 1 - i) % labelEvery === 0) {
      svgText(root, { x: x + slot / 2, y: height - 8, class: "axis", "text-anchor": "middle" }, day.slice(5));
    }
  });
  container.replaceChildren(root);
}

// Horizontal bars, one per item ({name, value, kind}); data-name and
// data-value on each bar, its count written after it.
function horizontalBars(container, items, unit, label) {
  if (!items.length) {
    const none = document.createElement("p");
    none.className = "muted";
    none.textContent = "none";
    container.replaceChildren(none);
    return;
  }
  const width = 600, rowHeight = 24, left = 150, right = 70;
  const height = items.length * rowHeight + 4;
  const max = Math.max(1, ...items.map((item) => item.value));
  const root = svgElement("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label });
  items.forEach((item, i) => {
    const y = 2 + i * rowHeight;
    const row = svgElement("g", { class: "row" }, root);
    svgText(row, { x: left - 8, y: y + 16, class: "axis", "text-anchor": "end" }, item.name);
    const w = Math.max(((width - left - right) * item.value) / max, item.value > 0 ? 1 : 0);
    const bar = svgElement("rect", {
      x: left, y: y + 3, width: w, height: rowHeight - 8,
      class: `bar ${item.kind}`, "data-name": item.name, "data-value": item.value,
    }, row);
    hoverText(bar, `${item.name}: ${formatCount(item.value)} ${unit}`);
    svgText(row, { x: left + w + 6, y: y + 16, class: "value" }, formatCount(item.value));
  });
  container.replaceChildren(root);
}

// A top list: name, runs, cost (with a bar), tokens; data-name and
// data-cost on each row.
function topTable(table, what, entries) {
  const head = table.tHead;
  head.replaceChildren();
  const tr = head.insertRow();
  for (const title of [what, "Runs", "Cost", "", "Tokens"]) {
    const th = document.createElement("th");
    th.textContent = title;
    tr.appendChild(th);
  }
  const body = table.tBodies[0];
  body.replaceChildren();
  if (!entries.length) {
    const td = body.insertRow().insertCell();
    td.colSpan = 5;
    td.className = "muted";
    td.textContent = `no runs with ${what.toLowerCase()}`;
    return;
  }
  const max = Math.max(...entries.map((e) => e.cost)) || 1;
  for (const entry of entries) {
    const r = body.insertRow();
    r.dataset.name = entry.name;
    r.dataset.cost = String(entry.cost);
    const name = r.insertCell();
    name.textContent = entry.name;
    name.title = entry.name; // the whole name when the cell cuts it
    r.insertCell().textContent = formatCount(entry.runs);
    r.insertCell().textContent = formatUsd(entry.cost);
    const barCell = r.insertCell();
    barCell.className = "bar-cell";
    const bar = svgElement("svg", { width: 100, height: 10, viewBox: "0 0 100 10" }, barCell);
    hoverText(svgElement("rect", { x: 0, y: 0, width: Math.max((100 * entry.cost) / max, 1), height: 10, class: "bar s0" }, bar),
      `${entry.name}: ${formatUsd(entry.cost)}`);
    r.insertCell().textContent = formatCount(entry.tokens);
  }
}

// A report's rows summed by group value (null left out), by cost then
// runs, the first TOP_ROWS.
function topEntries(report) {
  const byName = new Map();
  for (const row of report.rows || []) {
    if (row.group === null || row.group === undefined) continue;
    const entry = byName.get(row.group) || { name: String(row.group), runs: 0, cost: 0, tokens: 0 };
    entry.runs += row.runs;
    entry.cost += row.cost_usd;
    entry.tokens += row.total_tokens;
    byName.set(row.group, entry);
  }
  return [...byName.values()]
    .sort((a, b) => b.cost - a.cost || b.runs - a.runs || a.name.localeCompare(b.name))
    .slice(0, TOP_ROWS);
}

function legend(list, providers) {
  list.replaceChildren(...providers.map((provider, j) => {
    const li = document.createElement("li");
    const swatch = document.createElement("span");
    swatch.className = `swatch s${j % SERIES_COLOURS}`;
    li.dataset.provider = provider;
    li.append(swatch, provider);
    return li;
  }));
}

// The queue over the last hour (GET /v1/queue's `history`, sampled by the
// server): a line each for queued and running runs, a point per sample
// (data-at, data-queued, data-running; the counts on hover).
function queueChart(container, history, now) {
  const width = 600, height = 150, left = 40, right = 8, top = 10, bottom = 22;
  const plotWidth = width - left - right, plotHeight = height - top - bottom;
  const start = now - 3600000;
  const { max, steps } = axisScale(Math.max(1, ...history.map((s) => Math.max(s.queued, s.running))));
  const root = svgElement("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "queue over the last hour" });
  for (let i = 0; i <= steps; i++) {
    const y = top + plotHeight - (plotHeight * i) / steps;
    svgElement("line", { x1: left, x2: width - right, y1: y, y2: y, class: "grid" }, root);
    svgText(root, { x: left - 6, y: y + 4, class: "axis", "text-anchor": "end" }, formatCountAxis((max * i) / steps));
  }
  for (const [minutes, anchor] of [[60, "start"], [30, "middle"], [0, "end"]]) {
    const x = left + plotWidth * (1 - minutes / 60);
    svgText(root, { x, y: height - 6, class: "axis", "text-anchor": anchor }, minutes ? `-${minutes} min` : "now");
  }
  const at = (s) => left + Math.min(1, Math.max(0, (Date.parse(s.at) - start) / 3600000)) * plotWidth;
  const level = (n) => top + plotHeight - (plotHeight * n) / max;
  for (const [key, series] of [["queued", "s1"], ["running", "s0"]]) {
    if (!history.length) break;
    const points = history.map((s) => `${at(s).toFixed(1)},${level(s[key]).toFixed(1)}`).join(" ");
    svgElement("polyline", { points, class: `line ${series}`, "data-series": key }, root);
  }
  for (const s of history) {
    const point = svgElement("circle", {
      cx: at(s), cy: level(Math.max(s.queued, s.running)), r: 3, class: "hit",
      "data-at": s.at, "data-queued": s.queued, "data-running": s.running,
    }, root);
    hoverText(point, `${s.at}: ${formatCount(s.queued)} queued, ${formatCount(s.running)} running`);
  }
  container.replaceChildren(root);
}

async function loadQueueHistory() {
  const queue = await api("/v1/queue");
  const history = queue.history || [];
  queueChart($("queue-history").querySelector(".chart-body"), history, Date.now());
  $("queue-history").querySelector(".chart-note").textContent = history.length
    ? `(${history.length} samples since ${history[0].at})` : "(no sample yet: the server samples every 30 s)";
  $("queue-history").dataset.samples = String(history.length);
}

// --- the view -------------------------------------------------------------------

function renderUsage(days, byProvider, byAgent, bySession) {
  const totals = byProvider.totals;
  const empty = !totals || totals.runs === 0;
  $("usage-empty").hidden = !empty;
  $("usage-charts").hidden = empty;
  if (empty) return;

  // Rows by day then provider; providers in name order, "(none)" last.
  const cells = new Map();
  const names = new Set();
  for (const row of byProvider.rows || []) {
    const provider = groupName(row.group);
    names.add(provider);
    cells.set(`${row.bucket}\u0000${provider}`, row);
  }
  const providers = [...names].sort((a, b) => (a === "(none)") - (b === "(none)") || a.localeCompare(b));
  const cellOf = (day, provider) => cells.get(`${day}\u0000${provider}`);

  stackedBars($("usage-cost").querySelector(".chart-body"), {
    days, providers, label: "cost per day by provider",
    valueOf: (day, p) => (cellOf(day, p) || {}).cost_usd || 0,
    format: formatUsd, axisFormat: formatUsdAxis,
    detail: (day, p) => {
      const row = cellOf(day, p);
      return ` (${formatCount(row.runs)} runs` + (row.runs_without_cost ? `, ${row.runs_without_cost} without a cost)` : ")");
    },
  });
  legend($("usage-cost").querySelector(".legend"), providers);
  $("usage-cost").querySelector(".chart-note").textContent = totals.runs_without_cost
    ? `(${formatCount(totals.runs_without_cost)} of ${formatCount(totals.runs)} runs recorded no cost)` : "";

  stackedBars($("usage-tokens").querySelector(".chart-body"), {
    days, providers, label: "tokens per day by provider",
    valueOf: (day, p) => (cellOf(day, p) || {}).total_tokens || 0,
    format: (v) => `${formatCount(v)} tokens`, axisFormat: formatCountAxis,
    detail: (day, p) => {
      const row = cellOf(day, p);
      return ` (input ${formatCount(row.input_tokens)}, output ${formatCount(row.output_tokens)}, ` +
        `cache read ${formatCount(row.cache_read_tokens)}, cache write ${formatCount(row.cache_write_tokens)})`;
    },
  });
  legend($("usage-tokens").querySelector(".legend"), providers);

  const outcomes = [["succeeded", "ok"], ["failed", "failed"], ["cancelled", "cancelled"], ["running", "running"]]
    .map(([name, kind]) => ({ name, kind, value: totals[name] || 0 }))
    .filter((item) => item.value > 0);
  const outcomeCharts = $("usage-outcomes").querySelectorAll(".chart-body");
  horizontalBars(outcomeCharts[0], outcomes, "runs", "runs by outcome");
  const errors = Object.entries(totals.error_types || {})
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([name, value], j) => ({ name, value, kind: `s${(j + 3) % SERIES_COLOURS}` }));
  horizontalBars(outcomeCharts[1], errors, "runs", "runs by error type");

  topTable($("usage-agents"), "Agent", topEntries(byAgent));
  topTable($("usage-sessions"), "Session", topEntries(bySession));
}

async function loadUsage() {
  const generation = ++usageGeneration;
  const days = lastDays(Number($("usage-days").value) || 30, new Date());
  const range = { since: days[0], until: days[days.length - 1] };
  const report = (by, group) => api("/v1/usage?" + new URLSearchParams(Object.assign({ by, group }, range)));
  $("usage-state").textContent = "loading";
  loadQueueHistory().catch(failed);
  const [byProvider, byAgent, bySession] = await Promise.all([
    report("day", "provider"), report("month", "agent"), report("month", "session"),
  ]);
  if (generation !== usageGeneration) return;
  $("usage-range-text").textContent = `${range.since} to ${range.until} (UTC)`;
  renderUsage(days, byProvider, byAgent, bySession);
  $("usage-state").textContent = `${formatCount(byProvider.totals.runs)} runs`;
  $("usage-panel").dataset.range = `${range.since}/${range.until}`;
  $("usage-panel").dataset.loads = String(generation);
}

function showView(view) {
  $("app").dataset.view = view;
  for (const button of document.querySelectorAll("#views button")) {
    if (button.dataset.view === view) button.setAttribute("aria-current", "page");
    else button.removeAttribute("aria-current");
  }
  history.replaceState(null, "", view === "usage" ? "#usage" : location.pathname + location.search);
  if (view === "usage" && !$("app").hidden) loadUsage().catch(failed);
}

for (const button of document.querySelectorAll("#views button")) {
  button.addEventListener("click", () => showView(button.dataset.view));
}
$("usage-form").addEventListener("submit", (e) => {
  e.preventDefault();
  loadUsage().catch(failed);
});
$("usage-days").addEventListener("change", () => loadUsage().catch(failed));
// Once the token is accepted (the page shown), the usage view loads if open.
new MutationObserver(() => {
  if (!$("app").hidden && $("app").dataset.view === "usage") loadUsage().catch(failed);
}).observe($("app"), { attributes: true, attributeFilter: ["hidden"] });
showView(location.hash === "#usage" ? "usage" : "overview");
