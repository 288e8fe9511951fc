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
    browser.goto(&format!("{}/", serve.url));
    browser.type_into("#token-input", TOKEN);
    browser.click("#token-form button");
    browser.wait_text("#server-state", "connected", |t| t == "connected");
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
fn eval(browser: &Browser, script: &str) -> Value {
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

/// The renderer, asked directly: what each piece of Markdown becomes, and
/// that markup and unsafe links in it stay text.
#[test]
fn the_markdown_renderer_builds_only_safe_nodes() {
    let home = tempfile::tempdir().unwrap();
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let serve = serve_with_cli_env(home.path(), &[], TOKEN, &[]);
    let browser = Browser::start();
    browser.goto(&format!("{}/", serve.url));
    browser.type_into("#token-input", TOKEN);
    browser.click("#token-form button");
    browser.wait_text("#server-state", "connected", |t| t == "connected");
    let cases = [
        (
            "plain *em* **strong** `co<de>`",
            "<p>plain <em>em</em> <strong>strong</strong> <code>co&lt;de&gt;</code></p>",
        ),
        ("a\nb\n\nc", "<p>a\nb</p><p>c</p>"),
        (
            "<script>alert(1)</script>",
            "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>",
        ),
        (
            "<img src=x onerror=alert(1)>",
            "<p>&lt;img src=x onerror=alert(1)&gt;</p>",
        ),
        (
            "[x](javascript:alert(1)) [y](https://a.example/?q=1&r=2)",
            "<p>[x](javascript:alert(1)) <a href=\"https://a.example/?q=1&amp;r=2\" rel=\"noopener noreferrer\" target=\"_blank\">y</a></p>",
        ),
        ("[x](data:text/html,hi)", "<p>[x](data:text/html,hi)</p>"),
        (
            "```js\n<b>x</b>\n```",
            "<pre class=\"code\"><code data-lang=\"js\">&lt;b&gt;x&lt;/b&gt;</code></pre>",
        ),
        (
            "- a\n- b\n  - c\n\n1. one\n2. two",
            "<ul><li><p>a</p></li><li><p>b</p><ul><li><p>c</p></li></ul></li></ul><ol><li><p>one</p></li><li><p>two</p></li></ol>",
        ),
        (
            "# T\n> quoted\n\n---",
            "<h4>T</h4><blockquote><p>quoted</p></blockquote><hr>",
        ),
        (
            "snake_case_name and 2 * 3 * 4",
            "<p>snake_case_name and 2 * 3 * 4</p>",
        ),
        ("\\*not em\\*", "<p>*not em*</p>"),
    ];
    let inputs: Vec<&str> = cases.iter().map(|(i, _)| *i).collect();
    let got = browser.script(
        "return arguments[0].map((t) => renderMarkdown(t).innerHTML);",
        json!([inputs]),
    );
    for (i, (input, want)) in cases.iter().enumerate() {
        assert_eq!(got[i], *want, "{input:?}");
    }
}

/// The transcript fed events directly (the shapes of the protocol's
/// types): streamed text, a failed tool call with a long output, the
/// notices, a turn's usage, an error, a skipped attempt and the result.
#[test]
fn the_transcript_draws_each_kind_of_event() {
    let home = tempfile::tempdir().unwrap();
    let serve = serve_with_cli_env(home.path(), &[], TOKEN, &[]);
    let browser = Browser::start();
    browser.goto(&format!("{}/", serve.url));
    browser.type_into("#token-input", TOKEN);
    browser.click("#token-form button");
    browser.wait_text("#server-state", "connected", |t| t == "connected");
    let at = |s: u32| format!("2026-11-29T10:00:{s:02}.000Z");
    let head = |seq: u32, attempt: u32, provider: &str| json!({"v": 1, "ts": at(seq), "run_id": "r1", "seq": seq, "attempt": attempt, "provider": provider});
    let with = |mut e: Value, body: Value| {
        for (k, v) in body.as_object().unwrap() {
            e[k] = v.clone();
        }
        e
    };
    let long: String = (1..=100).map(|n| format!("{n}\n")).collect();
    let events = json!([
        with(
            head(0, 1, "claude"),
            json!({"type": "status", "kind": "notice",
            "detail": "skipped claude: its quota is exhausted until 2026-11-29T12:00:00Z"})
        ),
        with(
            head(1, 2, "gemini"),
            json!({"type": "start", "model": "gemini-2.5-flash"})
        ),
        with(
            head(2, 2, "gemini"),
            json!({"type": "text_delta", "text": "Hello "})
        ),
        with(
            head(3, 2, "gemini"),
            json!({"type": "text_delta", "text": "**wor"})
        ),
        with(
            head(4, 2, "gemini"),
            json!({"type": "text_delta", "text": "ld**"})
        ),
        with(
            head(5, 2, "gemini"),
            json!({"type": "tool_use", "id": "t1", "name": "run_shell_command",
            "class": "shell", "input": {"command": "seq 100", "description": "count"}})
        ),
        with(
            head(6, 2, "gemini"),
            json!({"type": "tool_result", "id": "t1", "ok": false,
            "output": long, "exit_code": 2})
        ),
        with(
            head(7, 2, "gemini"),
            json!({"type": "status", "kind": "budget_warning",
            "budget": "daily", "measure": "usd", "spent": 8.0, "limit": 10.0, "share": 0.8})
        ),
        with(
            head(8, 2, "gemini"),
            json!({"type": "status", "kind": "notice",
            "detail": "session `s` (x1) is no longer known to gemini; starting a new one"})
        ),
        with(
            head(9, 2, "gemini"),
            json!({"type": "usage", "scope": "turn",
            "usage": {"input_tokens": 10, "output_tokens": 5, "cost_usd": 0.0012}})
        ),
        with(
            head(10, 2, "gemini"),
            json!({"type": "error", "kind": "rate_limit",
            "message": "slow <b>down</b>", "recoverable": true, "source": "stderr"})
        ),
    ]);
    let result = with(
        head(11, 2, "gemini"),
        json!({"type": "result", "envelope": {"response": "Hello **world**", "run_id": "r1",
            "provider": "gemini", "model": "gemini-2.5-flash", "duration_ms": 2400,
            "tokens_used": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15, "cost_usd": 0.0012},
            "attempts": [
                {"provider": "claude", "skipped": true, "error_type": "quota", "error": "its quota is exhausted", "duration_ms": 0},
                {"provider": "gemini", "model": "gemini-2.5-flash", "duration_ms": 2300}]}}),
    );
    browser.script(
        "const run = newRun('r1'); openRun = run; document.getElementById('run-panel').hidden = false;
         document.getElementById('transcript').replaceChildren();
         for (const e of arguments[0]) onEvent(run, e); return null;",
        json!([events]),
    );
    // The streamed pieces, drawn as one message once the 50 ms pass.
    browser.wait_text(
        "#transcript .t-assistant strong",
        "the streamed text",
        |t| t == "world",
    );
    let seen = eval(
        &browser,
        "const q = (s) => document.querySelector('#transcript ' + s);
         return {said: q('.t-assistant .t-body').textContent,
                 tool: q('.t-tool').dataset.state, command: q('.t-tool .t-command').textContent,
                 input: q('.t-tool .t-tool-input').textContent.includes('\"description\": \"count\"'),
                 head: q('.t-result-head').textContent,
                 folded: q('.t-tool-result details').open, fold: q('.t-tool-result summary').textContent,
                 notices: [...document.querySelectorAll('#transcript .t-notice')].map(n => [n.dataset.kind, n.textContent]),
                 usage: q('.t-usage').textContent, error: q('.t-error').textContent,
                 elements: document.querySelectorAll('#transcript b').length,
                 lanes: [...document.querySelectorAll('#run-lanes .lane')].map(l => [l.dataset.provider, l.dataset.state])};",
    );
    assert_eq!(seen["said"], "Hello world", "{seen:#}");
    assert_eq!(seen["tool"], "failed", "{seen:#}");
    assert_eq!(seen["command"], "seq 100", "{seen:#}");
    assert_eq!(seen["input"], true, "{seen:#}");
    assert_eq!(seen["head"], "✗ failed · exit 2", "{seen:#}");
    assert_eq!(seen["folded"], false, "{seen:#}");
    assert_eq!(
        seen["fold"], "output (101 lines, 292 characters)",
        "{seen:#}"
    );
    assert_eq!(
        seen["notices"],
        json!([
            [
                "notice",
                "skipped claude: its quota is exhausted until 2026-11-29T12:00:00Z"
            ],
            ["attempt", "attempt 2 · gemini · gemini-2.5-flash"],
            ["warn", "budget daily: 8 of 10 usd spent (80%)"],
            [
                "notice",
                "session `s` (x1) is no longer known to gemini; starting a new one"
            ],
        ]),
        "{seen:#}"
    );
    assert_eq!(
        seen["usage"], "model call: 10 in · 5 out · $0.0012",
        "{seen:#}"
    );
    assert_eq!(
        seen["error"], "Error · rate_limit (recoverable)slow <b>down</b>",
        "{seen:#}"
    );
    assert_eq!(seen["elements"], 0, "{seen:#}");
    assert_eq!(
        seen["lanes"],
        json!([["claude", "skipped"], ["gemini", "running"]]),
        "{seen:#}"
    );

    // The result: the lanes from the envelope, the answer not repeated.
    browser.script(
        "onEvent(openRun, arguments[0]); return null;",
        json!([result]),
    );
    let after = eval(
        &browser,
        "return {lanes: [...document.querySelectorAll('#run-lanes .lane')].map(l => [l.dataset.provider, l.dataset.state, l.querySelector('.lane-duration').textContent]),
                 result: document.querySelector('#transcript .t-result').textContent,
                 status: document.getElementById('run-status').textContent};",
    );
    assert_eq!(
        after["lanes"],
        json!([["claude", "skipped", "skipped"], ["gemini", "ok", "2.3 s"]]),
        "{after:#}"
    );
    assert!(
        after["result"]
            .as_str()
            .unwrap()
            .contains("The answer is the last message above."),
        "{after:#}"
    );
    assert_eq!(after["status"], "succeeded", "{after:#}");
}
