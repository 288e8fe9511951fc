// A run's failover timeline: one lane per attempt, in order, each with
// its provider, model, duration and the error that moved the run on to
// the next. Live, a lane starts at the first event of its attempt (the
// events' `attempt` and `provider`), takes the model from `start` and
// `session`, its error from `error` or agentgate's `failover` status, and
// ends when the next attempt starts; a step agentgate skipped (its quota,
// or its agent's spent budget) is a `skipped` status under its attempt's
// number, with its error type and reset time. Once the run ended its
// envelope's `attempts` (the record) replace what the events told. Each
// bar is placed on one time axis (the run's attempts one after another).
// Plain DOM, text only. Uses app.js's `$` and runs.js's `durationText` and
// `timeCell`.
"use strict";

// The lane of `event`'s attempt (made when it is the first event of it);
// null for an event before any attempt.
function timelineLane(run, event) {
  if (!event.attempt) return null;
  const key = `${run.generation}:${event.attempt}`;
  let lane = run.lanes.find((l) => l.key === key);
  const at = Date.parse(event.ts);
  if (!lane) {
    // The attempts before it have ended.
    for (const l of run.lanes) if (l.state === "running") l.state = l.error ? "failed" : "ended";
    lane = {
      key, attempt: event.attempt, provider: event.provider || "", model: "", agent: "",
      first: at, last: at, duration: null, error: "", errorType: "", resetAt: "",
      state: "running",
    };
    run.lanes.push(lane);
  }
  if (!Number.isNaN(at)) {
    if (Number.isNaN(lane.first)) lane.first = at;
    lane.last = at;
  }
  if (event.provider) lane.provider = event.provider;
  return lane;
}

// What `event` tells its lane; whether the timeline is to be drawn again.
function timelineEvent(run, event) {
  const known = run.lanes.length;
  const lane = timelineLane(run, event);
  if (!lane) return false;
  switch (event.type) {
    case "start":
      if (event.model) lane.model = event.model;
      if (event.agent) lane.agent = event.agent;
      return true;
    case "session":
      if (event.model) lane.model = event.model;
      return true;
    case "error":
      lane.error = `${event.kind}: ${event.message}`;
      lane.errorType = event.kind || "";
      return true;
    case "status": {
      // agentgate's `failover` status is the live word of why the attempt
      // ended (the run's `error` event comes only at its end).
      if (event.kind === "failover") {
        lane.error = `${event.error_type}: ${event.message}`;
        lane.errorType = event.error_type || "";
        lane.state = "failed";
      } else if (event.kind === "skipped") {
        // agentgate did not start this step: its quota is exhausted or
        // held, or its agent's budget window is spent, until `reset_at`.
        lane.error = `${event.error_type}: ${event.message}`;
        lane.errorType = event.error_type || "";
        lane.resetAt = event.reset_at || "";
        lane.state = "skipped";
      }
      return true;
    }
    case "heartbeat":
    case "result":
      return true;
  }
  return run.lanes.length !== known;
}

// The envelope's attempts, as the lanes of the run's last try.
function timelineFromEnvelope(run, envelope) {
  const attempts = (envelope && envelope.attempts) || [];
  if (!attempts.length) return;
  run.lanes = run.lanes.filter((l) => !l.key.startsWith(`${run.generation}:`));
  attempts.forEach((a, i) => {
    run.lanes.push({
      key: `${run.generation}:${i + 1}`, attempt: i + 1, provider: a.provider || "",
      model: a.model || "", agent: a.agent || "", first: NaN, last: NaN,
      duration: a.duration_ms || 0,
      error: a.error_type ? `${a.error_type}: ${a.error || ""}` : "",
      errorType: a.error_type || "", resetAt: a.skipped ? a.reset_at || "" : "",
      state: a.error_type ? (a.skipped ? "skipped" : "failed") : "ok",
    });
  });
}

function laneDuration(lane) {
  if (lane.duration !== null) return lane.duration;
  const d = lane.last - lane.first;
  return Number.isNaN(d) ? 0 : Math.max(0, d);
}

// Draw the lanes into #run-lanes: a label, a bar on the shared axis,
// the duration and the error.
function drawTimeline(run) {
  const list = $("run-lanes");
  list.replaceChildren();
  $("run-timeline").hidden = run.lanes.length === 0;
  const durations = run.lanes.map(laneDuration);
  const total = durations.reduce((a, b) => a + b, 0);
  let offset = 0;
  run.lanes.forEach((lane, i) => {
    const li = document.createElement("li");
    li.className = "lane " + lane.state;
    li.dataset.attempt = String(lane.attempt);
    li.dataset.provider = lane.provider;
    li.dataset.state = lane.state;
    if (lane.errorType) li.dataset.errorType = lane.errorType;
    const label = document.createElement("span");
    label.className = "lane-label";
    const n = document.createElement("span");
    n.className = "lane-n";
    n.textContent = `#${lane.attempt}`;
    const provider = document.createElement("strong");
    provider.className = "lane-provider";
    provider.textContent = lane.agent && lane.agent !== lane.provider ? `${lane.agent} (${lane.provider})` : lane.provider;
    const model = document.createElement("span");
    model.className = "lane-model muted";
    model.textContent = lane.model;
    label.append(n, " ", provider, " ", model);
    const track = document.createElement("span");
    track.className = "lane-track";
    const bar = document.createElement("span");
    bar.className = "lane-bar";
    // Placed by CSSOM properties (allowed by the style-src policy).
    const share = total > 0 ? durations[i] / total : 1 / run.lanes.length;
    const left = total > 0 ? offset / total : i / run.lanes.length;
    bar.style.setProperty("left", (left * 100).toFixed(2) + "%");
    bar.style.setProperty("width", Math.max(share * 100, 1.5).toFixed(2) + "%");
    offset += durations[i];
    track.appendChild(bar);
    const duration = document.createElement("span");
    duration.className = "lane-duration";
    duration.textContent = lane.state === "skipped" ? "skipped" :
      durationText(durations[i]) + (lane.state === "running" ? " so far" : "");
    li.append(label, track, duration);
    if (lane.error) {
      const error = document.createElement("span");
      error.className = "lane-error";
      error.textContent = lane.error;
      error.title = lane.error;
      li.appendChild(error);
    }
    if (lane.resetAt) {
      // When the skipped step's quota or budget window resets: relative,
      // the exact time on hover.
      const reset = document.createElement("span");
      reset.className = "lane-reset muted";
      reset.append(Date.parse(lane.resetAt) > Date.now() ? "resets " : "reset ", timeCell(lane.resetAt));
      li.appendChild(reset);
    }
    list.appendChild(li);
  });
}
