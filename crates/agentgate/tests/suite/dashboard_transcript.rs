//! A run's transcript and failover timeline in the dashboard, in headless
//! Chromium against a real `agentgate serve` running the REAL Claude Code
//! (and Codex for the failover) against `agentgate fake-llm`.
//!
//! What makes the live checks deterministic: the agent's second tool call
//! is a shell command that waits for a file the test writes, so the page
//! is read while the run is provably still running (the tool result and
//! the answer cannot have come yet), and again after it ended.
//!
//! `AGENTGATE_SCREENSHOT_TRANSCRIPT=docs/transcript.png` and
//! `AGENTGATE_SCREENSHOT_FAILOVER=docs/failover-timeline.png` refresh the
//! book's screenshots (docs/operating/dashboard.md shows them).

use std::path::Path;

use agentgate_fakellm::clients::Cli;
use serde_json::{Value, json};

use super::dashboard::{artifact, click_in_page};
use super::serve_queue_support::{TOKEN, wait_until};
use super::serve_support::{Serve, get, post_json, serve_with_cli_env};
use super::support::{Client, FakeServer};
use super::webdriver::Browser;

/// A shell command that waits (bounded: 120 s) for `release` to exist,
/// then prints `released`.
fn wait_for_file(release: &Path) -> String {
    format!(
        "for i in $(seq 1200); do [ -e {} ] && break; sleep 0.1; done; echo released",
        release.display()
    )
}

/// Log the browser in and open run `id`'s panel.
fn open_run(browser: &Browser, serve: &Serve, id: &str) {
    browser.login(&serve.url, TOKEN);
    let row = format!("#runs tr[data-run-id='{id}']");
    browser.find(&row);
    click_in_page(browser, &row);
    browser.wait_text("#run-id", "the run shown", |t| t == id);
}

fn submit(serve: &Serve, body: Value) -> String {
    let r = post_json(&serve.url, "/v1/runs", TOKEN, &body.to_string());
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["run_id"].as_str().unwrap().to_owned()
}

fn wait_for_end(serve: &Serve, id: &str) -> Value {
    wait_until("the run's end", || {
        let v = get(&serve.url, &format!("/v1/runs/{id}"), Some(TOKEN)).json();
        (!v["envelope"].is_null()).then_some(v)
    })
}

/// What the page's script returns for `script`.
pub(super) fn eval(browser: &Browser, script: &str) -> Value {
    browser.script(script, json!([]))
}

/// Copy a screenshot to the book when `var` names a path in it.
fn publish(shot: &Path, var: &str) {
    if let Ok(to) = std::env::var(var) {
        std::fs::copy(shot, super::support::workspace_root().join(to)).unwrap();
    }
}

const HOSTILE: &str =
    "<script>window.pwned = 1</script> and <img src=x onerror=\"window.pwned = 2\">";

#[test]
fn a_live_run_reads_as_a_transcript_with_its_tool_calls_and_answer() {
    let release_dir = tempfile::tempdir().unwrap();
    let release = release_dir.path().join("release");
    let answer = format!(
        "## Summary\n\nThe tool printed `hello-from-tool`:\n\n- one **bold** point\n- a [link](https://example.com/docs) and a [bad one](javascript:alert(1))\n\n```sh\necho done\n```\n\nOutput as text: {HOSTILE}"
    );
    let script = json!({"turns": [
        {"match": {"contains": "TRANSCRIPT", "tool_result": false}, "times": 1,
         "thinking": "Plan: run the tool, then wait.",
         "text": "Let me **look** first.",
         "tool_call": {"name": "Bash", "command": "echo hello-from-tool '<img src=x onerror=window.pwned=3>'"}},
        {"match": {"tool_result": true}, "times": 1,
         "text": "Now waiting for the release.",
         "tool_call": {"name": "Bash", "command": wait_for_file(&release)}},
        {"match": {"tool_result": true}, "text": answer},
    ]});
    // JSON is YAML.
    let server = FakeServer::start(&script.to_string());
    let client = Client::new(Cli::Claude, &server);
    let home = tempfile::tempdir().unwrap();
    let serve = serve_with_cli_env(home.path(), &client.setup.env, TOKEN, &[]);
    let id = submit(
        &serve,
        json!({
            "prompt": format!("TRANSCRIPT please, and keep {HOSTILE} as text"),
            "providers": ["claude"],
            "permission_mode": "bypass",
            "model": client.setup.model,
            "binary": client.program,
            "cwd": client.setup.workdir,
            "timeout": "150s",
        }),
    );
    let browser = Browser::start();
    open_run(&browser, &serve, &id);

    // Live: the first tool call with its input and output, the second
    // waiting on its command, no answer yet.
    let first_tool = "#transcript .t-tool[data-state='ok']";
    let output = browser.wait_text(first_tool, "the first tool's output", |t| {
        t.contains("hello-from-tool") && t.contains("✓ ok")
    });
    assert!(
        output.contains("echo hello-from-tool"),
        "its input: {output}"
    );
    browser.wait_text(
        "#transcript .t-tool[data-state='running']",
        "the second tool, running",
        |t| t.contains("release") && t.contains("running…"),
    );
    assert_eq!(browser.text("#run-status"), "running");
    assert_eq!(
        eval(
            &browser,
            "return document.querySelectorAll('#transcript .t-result').length;"
        ),
        json!(0),
        "no result before the run ends"
    );
    let said = browser.text("#transcript .t-assistant");
    assert!(said.contains("Let me look first."), "{said}");
    assert_eq!(
        browser.text("#transcript .t-assistant strong"),
        "look",
        "the assistant's Markdown rendered"
    );
    // Thinking is there, folded.
    assert_eq!(
        eval(
            &browser,
            "const d = document.querySelector('#transcript .t-thinking details'); return d ? [d.open, d.textContent] : null;"
        ),
        json!([false, "ThinkingPlan: run the tool, then wait."])
    );

    std::fs::write(&release, "").unwrap();
    browser.wait_text("#run-status", "succeeded", |t| t == "succeeded");
    let result = browser.wait_text("#transcript .t-result", "the result", |t| {
        t.contains("Envelope (JSON)")
    });
    // The answer is the last message; the result does not repeat it.
    assert!(
        result.contains("The answer is the last message above."),
        "{result}"
    );
    let tools = eval(
        &browser,
        "return [...document.querySelectorAll('#transcript .t-tool')].map(t => t.dataset.state);",
    );
    assert_eq!(tools, json!(["ok", "ok"]));
    browser.wait_text(
        "#transcript .t-tool ~ .t-tool .t-tool-result",
        "the second tool's output",
        |t| t.contains("released"),
    );

    // The transcript's order: the prompt, then what happened as it came.
    let kinds = eval(
        &browser,
        "return [...document.querySelectorAll('#transcript > .t-item')].map(e => e.className.replace('t-item t-', '')).filter(k => ['prompt', 'thinking', 'assistant', 'tool', 'result'].includes(k));",
    );
    assert_eq!(
        kinds,
        json!([
            "prompt",
            "thinking",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "result"
        ])
    );

    // The answer's Markdown: a heading, a list, code, one link (https,
    // noopener); the javascript: one is text.
    let answer_dom = eval(
        &browser,
        "const all = document.querySelectorAll('#transcript .t-assistant'); const a = all[all.length - 1];
         return {h: a.querySelector('h5').textContent, items: a.querySelectorAll('li').length,
                 code: [...a.querySelectorAll('code')].map(c => c.textContent),
                 links: [...a.querySelectorAll('a')].map(l => [l.href, l.rel]), text: a.textContent};",
    );
    assert_eq!(answer_dom["h"], "Summary", "{answer_dom}");
    assert_eq!(answer_dom["items"], 2, "{answer_dom}");
    assert_eq!(
        answer_dom["code"],
        json!(["hello-from-tool", "echo done"]),
        "{answer_dom}"
    );
    assert_eq!(
        answer_dom["links"],
        json!([["https://example.com/docs", "noopener noreferrer"]]),
        "{answer_dom}"
    );
    let answer_text = answer_dom["text"].as_str().unwrap();
    assert!(
        answer_text.contains("[bad one](javascript:alert(1))"),
        "{answer_text}"
    );

    // Markup from the run (prompt, tool output, answer) is text: no
    // element made of it, nothing run, every character shown.
    let hostile = eval(
        &browser,
        "return {elements: document.querySelectorAll('#transcript script, #transcript img').length,
                 pwned: window.pwned === undefined ? null : window.pwned,
                 prompt: document.querySelector('#transcript .t-prompt').textContent,
                 tool: document.querySelector('#transcript .t-tool').textContent,
                 answer: [...document.querySelectorAll('#transcript .t-assistant')].pop().textContent};",
    );
    assert_eq!(hostile["elements"], 0, "{hostile}");
    assert_eq!(hostile["pwned"], Value::Null, "{hostile}");
    for place in ["prompt", "answer"] {
        assert!(
            hostile[place].as_str().unwrap().contains(HOSTILE),
            "{place}: {hostile}"
        );
    }
    assert!(
        hostile["tool"]
            .as_str()
            .unwrap()
            .contains("<img src=x onerror=window.pwned=3>"),
        "{hostile}"
    );

    // The runs list has caught up (for the screenshot).
    browser.wait_text(
        &format!("#runs tr[data-run-id='{id}']"),
        "the row's end",
        |t| t.contains("succeeded"),
    );
    // Replayed after the end, the transcript is the same.
    let live = browser.text("#transcript");
    click_in_page(&browser, "#run-close");
    let row = format!("#runs tr[data-run-id='{id}']");
    click_in_page(&browser, &row);
    let replayed = browser.wait_text("#transcript", "the replay", |t| {
        t.contains("Envelope (JSON)")
    });
    assert_eq!(
        replayed, live,
        "the replay differs from the live transcript"
    );
    // One lane, the attempt that answered.
    let lanes = eval(
        &browser,
        "return [...document.querySelectorAll('#run-lanes .lane')].map(l => [l.dataset.provider, l.dataset.state]);",
    );
    assert_eq!(lanes, json!([["claude", "ok"]]));

    // The envelope's copy button copies (the clipboard, or the fallback).
    eval(
        &browser,
        "document.querySelector('#transcript .t-envelope').open = true; return null;",
    );
    click_in_page(&browser, "#transcript .t-envelope .t-copy");
    let copied = wait_until("the copy's outcome", || {
        let v = eval(
            &browser,
            "return document.querySelector('#transcript .t-copy').dataset.copied || null;",
        );
        (!v.is_null()).then_some(v)
    });
    assert_eq!(copied, json!("true"));
    eval(
        &browser,
        "document.querySelector('#transcript .t-envelope').open = false; return null;",
    );
    wait_for_end(&serve, &id);

    browser.set_viewport_size(1280, 1400);
    eval(
        &browser,
        "document.querySelector('#run-panel').scrollIntoView(); return null;",
    );
    let shot = artifact("transcript.png");
    browser.screenshot(&shot);
    publish(&shot, "AGENTGATE_SCREENSHOT_TRANSCRIPT");
}

#[test]
fn a_failover_run_shows_a_lane_per_attempt_with_the_error_that_moved_it_on() {
    let release_dir = tempfile::tempdir().unwrap();
    let release = release_dir.path().join("release");
    // Two Claude agents: the first one's model is rate-limited, the
    // second's answers after its tool call waits for the file.
    let script = json!({"turns": [
        {"match": {"model": "opus"}, "repeat": true,
         "error": {"kind": "rate_limit", "retry_after": 0}},
        {"match": {"tool_result": false}, "times": 1,
         "tool_call": {"name": "Bash", "command": wait_for_file(&release)}},
        {"match": {"tool_result": true}, "text": "the second agent answers"},
    ]});
    let server = FakeServer::start(&script.to_string());
    let client = Client::new(Cli::Claude, &server);
    let agent = |model: &str| {
        json!({"provider": "claude", "binary": client.program, "env": client.setup.env.iter().cloned().collect::<std::collections::BTreeMap<_, _>>(),
               "model": model, "max_provider_retries": 1, "timeout": "120s"})
    };
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("agentgate.yaml");
    let agents = json!({"version": 1, "agents": {
        "fast": agent("claude-opus-4-1"),
        "steady": agent(&client.setup.model),
    }});
    std::fs::write(&config, agents.to_string()).unwrap();
    let serve = serve_with_cli_env(
        home.path(),
        &[],
        TOKEN,
        &["--config", config.to_str().unwrap()],
    );
    let id = submit(
        &serve,
        json!({
            "prompt": "do the task",
            "agents": ["fast", "steady"],
            "permission_mode": "bypass",
            "cwd": client.setup.workdir,
            "timeout": "150s",
        }),
    );
    let browser = Browser::start();
    open_run(&browser, &serve, &id);

    // Live, from the events: the first lane ended with its error, the
    // second runs (its tool waits for the file).
    let lanes_now = || {
        eval(
            &browser,
            "return [...document.querySelectorAll('#run-lanes .lane')].map(l => [l.dataset.attempt, l.dataset.provider, l.dataset.state, (l.querySelector('.lane-error') || {}).textContent || '']);",
        )
    };
    let live = wait_until("the second lane, running", || {
        let lanes = lanes_now();
        (lanes.as_array().map(Vec::len) == Some(2) && lanes[1][2] == "running").then_some(lanes)
    });
    assert_eq!(live[0][0], "1", "{live}");
    assert_eq!(live[0][1], "claude", "{live}");
    assert_eq!(
        live[0][2],
        "failed",
        "{live}\n{}",
        browser.text("#transcript")
    );
    assert!(
        live[0][3].as_str().unwrap().starts_with("rate_limit: "),
        "{live}"
    );
    assert_eq!(live[1][1], "claude", "{live}");
    assert_eq!(live[1][3], "", "{live}");
    let failover = browser.text("#transcript .t-notice[data-kind='failover']");
    assert!(
        failover.contains("failover:") && failover.contains("rate_limit"),
        "{failover}"
    );

    std::fs::write(&release, "").unwrap();
    browser.wait_text("#run-status", "succeeded", |t| t == "succeeded");
    let envelope = wait_for_end(&serve, &id)["envelope"].clone();
    // Ended: the envelope's attempts, the error that moved the run on.
    let lanes = wait_until("the envelope's lanes", || {
        let lanes = lanes_now();
        (lanes[1][2] == "ok").then_some(lanes)
    });
    let first_error = format!(
        "rate_limit: {}",
        envelope["attempts"][0]["error"].as_str().unwrap()
    );
    assert_eq!(
        lanes,
        json!([
            ["1", "claude", "failed", first_error],
            ["2", "claude", "ok", ""],
        ]),
        "{envelope:#}"
    );
    let durations = eval(
        &browser,
        "return [...document.querySelectorAll('#run-lanes .lane-duration')].map(d => d.textContent);",
    );
    assert!(
        durations
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d.as_str().unwrap().ends_with('s')),
        "{durations}"
    );
    let answer = browser.text("#transcript .t-result");
    assert!(answer.contains("the second agent answers"), "{answer}");
    let agents_shown = browser.text("#run-lanes");
    assert!(
        agents_shown.contains("fast (claude)") && agents_shown.contains("steady (claude)"),
        "{agents_shown}"
    );

    browser.set_viewport_size(1280, 800);
    eval(
        &browser,
        "document.querySelector('#run-panel').scrollIntoView(); return null;",
    );
    let shot = artifact("failover-timeline.png");
    browser.screenshot(&shot);
    publish(&shot, "AGENTGATE_SCREENSHOT_FAILOVER");
}
