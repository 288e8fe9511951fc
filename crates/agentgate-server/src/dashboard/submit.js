// Starting work from the page: the New run form (a run of a provider, an
// agent or a failover chain of the server's config, with its prompt,
// folder, session, sandbox, labels and priority; or a workflow from a file
// the server can read) posted to POST /v1/runs or POST /v1/workflows as any
// client would; the new run then opens. Offered only to a token that may
// submit. The server checks every field: its refusal is shown as it says it.
"use strict";

// The choices of "Who": agents and chains first (what a config is for),
// then every provider. Values are `agent:NAME`, `chain:NAME`, `provider:NAME`.
async function loadSubmitTargets() {
  const listing = await api("/v1/providers");
  const select = $("submit-target");
  const kept = select.value;
  select.replaceChildren();
  const group = (label, items, kind, text) => {
    if (!items.length) return;
    const g = document.createElement("optgroup");
    g.label = label;
    for (const item of items) {
      const option = document.createElement("option");
      option.value = `${kind}:${item.name}`;
      option.textContent = text(item);
      g.appendChild(option);
    }
    select.appendChild(g);
  };
  group("Agents", listing.agents || [], "agent",
    (a) => `${a.name} (${a.provider}${a.model ? " · " + a.model : ""})`);
  group("Chains", listing.chains || [], "chain", (c) => `${c.name}: ${c.agents.join(" → ")}`);
  group("Providers", listing.providers || [], "provider",
    (p) => p.name + (p.binary_found ? "" : " (not installed)"));
  if ([...select.options].some((o) => o.value === kept)) select.value = kept;
}

function submitKind() {
  return document.querySelector('input[name="submit-kind"]:checked').value;
}

// Labels from the key=value words (parsed as the runs filter's are).
function submitLabels() {
  const labels = {};
  for (const pair of parseLabelFilter($("submit-labels").value)) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new Error(`label "${pair}": write key=value`);
    labels[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return labels;
}

// The request's body, from the form.
function submitBody() {
  const body = { labels: submitLabels() };
  const priority = Number($("submit-priority").value || 0);
  if (priority) body.priority = priority;
  if (submitKind() === "workflow") {
    body.file = $("submit-file").value.trim();
    const input = $("submit-input").value.trim();
    if (input) {
      try {
        body.input = JSON.parse(input);
      } catch (e) {
        throw new Error("the input is not JSON: " + e.message);
      }
    }
    return { path: "/v1/workflows", body };
  }
  const [kind, name] = $("submit-target").value.split(/:(.*)/s);
  if (kind === "agent") body.agents = [name];
  else if (kind === "chain") body.chain = name;
  else if (kind === "provider") body.providers = [name];
  body.prompt = $("submit-prompt").value;
  for (const [id, field] of [["submit-cwd", "cwd"], ["submit-session", "session"],
    ["submit-sandbox", "sandbox"]]) {
    const value = $(id).value.trim();
    if (value) body[field] = value;
  }
  return { path: "/v1/runs", body };
}

function submitResult(text, isError) {
  const el = $("submit-result");
  el.textContent = text;
  el.className = isError ? "error" : "muted";
}

async function submitForm() {
  let request;
  try {
    request = submitBody();
  } catch (e) {
    submitResult(e.message, true);
    return;
  }
  const button = document.querySelector("#submit-form button[type=submit]");
  button.disabled = true;
  try {
    const accepted = await api(request.path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(request.body),
    });
    submitResult(`started ${accepted.run_id}`, false);
    $("submit-form").dataset.lastRun = accepted.run_id;
    await loadRuns(false);
    showRun(accepted.run_id);
  } catch (e) {
    if (e instanceof Unauthorized) failed(e);
    else submitResult(e.message, true);
  } finally {
    button.disabled = false;
  }
}

function openSubmit() {
  $("submit-panel").hidden = false;
  submitResult("", false);
  loadSubmitTargets().catch((e) => submitResult("cannot list the providers: " + e.message, true));
  $("submit-prompt").focus();
}

for (const radio of document.querySelectorAll('input[name="submit-kind"]')) {
  radio.addEventListener("change", () => {
    const workflow = submitKind() === "workflow";
    $("submit-run-fields").hidden = workflow;
    $("submit-workflow-fields").hidden = !workflow;
  });
}
$("submit-form").addEventListener("submit", (e) => {
  e.preventDefault();
  submitForm();
});
$("new-run").addEventListener("click", openSubmit);
$("submit-close").addEventListener("click", () => {
  $("submit-panel").hidden = true;
});
