// The runs list's cells: what a row answers at a glance (how long it took,
// which provider and model answered, what it cost, its labels, how it
// ended and why) from a run of GET /v1/runs, and times relative to now
// with the exact time on hover. Plain functions over a run's JSON, each
// giving text or a DOM node (never HTML), used by app.js's list. And the
// list's "when" filter: its choice as the query's since/until.
"use strict";

// The "when" filter into the query `q`: a relative choice (its value is
// seconds) as `since`, counted back from `now` (ms) at each query, so the
// list's refresh keeps the window sliding; "between…" as `since` and
// `until` from its two inputs, read in the browser's time zone and sent in
// UTC (RFC 3339). Without `now`, a relative choice is named, not placed:
// the filter as the reader set it, which app.js compares answers with.
function whenFilter(q, now) {
  const when = document.getElementById("filter-when").value;
  if (when === "between") {
    const from = localInputTime(document.getElementById("filter-from").value);
    const to = localInputTime(document.getElementById("filter-to").value);
    if (from) q.set("since", from);
    if (to) q.set("until", to);
  } else if (when) {
    q.set("since", now === undefined ? "last " + when + " s"
      : new Date(now - Number(when) * 1000).toISOString());
  }
}

// A `datetime-local` input's value (no offset: the browser's local time)
// as an RFC 3339 time in UTC; null when empty or not a time.
function localInputTime(value) {
  if (!value) return null;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? null : at.toISOString();
}

// "between…" shows its two inputs; the other choices hide them.
function showWhenInputs() {
  document.getElementById("filter-between").hidden =
    document.getElementById("filter-when").value !== "between";
}

// "12 s ago", "5 min ago", "3 h ago", "2 d ago"; the date past a week.
function relativeTime(iso, now) {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return "";
  const s = Math.round(((now === undefined ? Date.now() : now) - at) / 1000);
  if (s < 0) return "in " + spanText(-s);
  if (s < 5) return "just now";
  if (s < 7 * 86400) return spanText(s) + " ago";
  return new Date(at).toISOString().slice(0, 10);
}

// A span of seconds in its largest unit: "12 s", "5 min", "3 h", "2 d".
function spanText(s) {
  if (s < 60) return s + " s";
  if (s < 3600) return Math.floor(s / 60) + " min";
  if (s < 86400) return Math.floor(s / 3600) + " h";
  return Math.floor(s / 86400) + " d";
}

// A duration in milliseconds: "850 ms", "12.3 s", "4 min 05 s", "2 h 03 min".
function durationText(ms) {
  if (ms < 1000) return Math.round(ms) + " ms";
  if (ms < 60000) return (ms / 1000).toFixed(1) + " s";
  const s = Math.floor(ms / 1000);
  const pad = (n) => String(n).padStart(2, "0");
  if (s < 3600) return Math.floor(s / 60) + " min " + pad(s % 60) + " s";
  return Math.floor(s / 3600) + " h " + pad(Math.floor((s % 3600) / 60)) + " min";
}

// A time cell: relative, the exact time (as the server gave it) on hover.
function timeCell(iso, now) {
  const el = document.createElement("time");
  if (!iso) return el;
  el.dateTime = iso;
  el.title = iso;
  el.textContent = relativeTime(iso, now);
  return el;
}

// How long the run took (its envelope's duration); a running one, since
// it was submitted.
function runDuration(run, now) {
  const env = run.envelope;
  if (env && typeof env.duration_ms === "number" && run.status !== "running") {
    return durationText(env.duration_ms);
  }
  if (run.status === "running") {
    const since = Date.parse(run.created_at);
    if (!Number.isNaN(since)) return durationText(Math.max(0, (now === undefined ? Date.now() : now) - since)) + " so far";
  }
  return "";
}

// The provider and model that answered (the envelope's), else the
// providers the request names.
function answeredBy(run) {
  const env = run.envelope;
  if (env && env.provider) return env.model ? `${env.provider} · ${env.model}` : env.provider;
  return (run.providers || []).join(", ");
}

// The run's cost in USD, when its envelope has one.
function runCost(run) {
  const usd = run.envelope && run.envelope.tokens_used && run.envelope.tokens_used.cost_usd;
  return typeof usd === "number" ? "$" + usd.toFixed(4) : "";
}

// The caller's labels (`key=value`, each its own chip).
function labelsCell(run) {
  const span = document.createElement("span");
  const labels = (run.request && run.request.labels) || {};
  for (const [key, value] of Object.entries(labels)) {
    const chip = document.createElement("span");
    chip.className = "chip";
    chip.textContent = `${key}=${value}`;
    span.appendChild(chip);
  }
  return span;
}

// The status badge, with the error type that ended it (or that it waits
// on) beside it, and the error's text on hover.
function outcomeCell(run) {
  const span = document.createElement("span");
  const badge = document.createElement("span");
  badge.className = "status " + run.status;
  badge.textContent = run.status;
  span.appendChild(badge);
  const env = run.envelope;
  const why = (env && env.error_type) || run.waiting_for;
  if (why) {
    const type = document.createElement("span");
    type.className = "error-type";
    type.textContent = why;
    span.appendChild(type);
  }
  const error = (env && env.error) || run.error;
  if (error) span.title = error;
  return span;
}

// A Cancel button for a queued or running run (a token that may cancel);
// its click cancels without opening the run.
function cancelCell(run) {
  const span = document.createElement("span");
  if (!may("cancel") || !(run.status === "queued" || run.status === "running")) return span;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "row-cancel";
  button.textContent = run.cancel_requested ? "Cancelling" : "Cancel";
  button.disabled = run.cancel_requested;
  button.addEventListener("click", async (e) => {
    e.stopPropagation();
    button.disabled = true;
    try {
      await api(`/v1/runs/${encodeURIComponent(run.run_id)}/cancel`, { method: "POST" });
      await loadRuns(false);
    } catch (err) {
      failed(err);
    }
  });
  button.addEventListener("keydown", (e) => e.stopPropagation());
  span.appendChild(button);
  return span;
}

// The list's columns: [key or function of the run, title].
function runColumns(now) {
  return [
    ["run_id", "Run"],
    ["kind", "Kind"],
    [(run) => outcomeCell(run), "Outcome"],
    [(run) => answeredBy(run), "Answered by"],
    [(run) => runDuration(run, now), "Duration"],
    [(run) => runCost(run), "Cost"],
    [(run) => labelsCell(run), "Labels"],
    ["session", "Session"],
    ["attempts", "Attempts"],
    [(run) => timeCell(run.created_at, now), "Submitted"],
    [(run) => cancelCell(run), ""],
  ];
}
