//! The transcript's parts in headless Chromium, without a CLI: the
//! Markdown renderer asked directly, and the transcript and failover
//! timeline fed events of each kind (the protocol's shapes) through the
//! page's own `onEvent`.

use serde_json::{Value, json};

use super::dashboard_transcript::eval;
use super::serve_queue_support::TOKEN;
use super::serve_support::serve_with_cli_env;
use super::webdriver::Browser;

/// The renderer, asked directly: what each piece of Markdown becomes, and
/// that markup and unsafe links in it stay text.
#[test]
fn the_markdown_renderer_builds_only_safe_nodes() {
    let home = tempfile::tempdir().unwrap();
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let serve = serve_with_cli_env(home.path(), &[], TOKEN, &[]);
    let browser = Browser::start();
    browser.login(&serve.url, TOKEN);
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
/// notices, a turn's usage, an error, a skipped attempt (agentgate's
/// `skipped` status: its lane marked skipped with its error type and reset
/// time, a notice in the transcript) and the result.
#[test]
fn the_transcript_draws_each_kind_of_event() {
    let home = tempfile::tempdir().unwrap();
    let serve = serve_with_cli_env(home.path(), &[], TOKEN, &[]);
    let browser = Browser::start();
    browser.login(&serve.url, TOKEN);
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
            json!({"type": "status", "kind": "skipped", "step": "claude",
            "error_type": "quota", "reset_at": "2026-11-29T12:00:00Z",
            "message": "skipped claude: its quota is exhausted until 2026-11-29T12:00:00Z"})
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
                {"provider": "claude", "skipped": true, "error_type": "quota", "error": "its quota is exhausted",
                 "reset_at": "2026-11-29T12:00:00Z", "duration_ms": 0},
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
         const skipped = (sel, reset) => { const el = document.querySelector(sel); if (!el) return null;
           const at = el.querySelector(reset + ' time');
           return {error_type: el.dataset.errorType, reset: el.querySelector(reset).textContent.replace(at.textContent, ''),
                   time: at.dateTime, title: at.title, error: (el.querySelector('.lane-error') || {}).textContent || null}; };
         return {said: q('.t-assistant .t-body').textContent,
                 tool: q('.t-tool').dataset.state, command: q('.t-tool .t-command').textContent,
                 input: q('.t-tool .t-tool-input').textContent.includes('\"description\": \"count\"'),
                 head: q('.t-result-head').textContent,
                 folded: q('.t-tool-result details').open, fold: q('.t-tool-result summary').textContent,
                 notices: [...document.querySelectorAll('#transcript .t-notice')].map(n => [n.dataset.kind, n.firstChild.textContent]),
                 skip: skipped('#transcript .t-notice[data-kind=skipped]', '.t-meta'),
                 lane: skipped('#run-lanes .lane[data-state=skipped]', '.lane-reset'),
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
                "skipped",
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
    // The skipped step from its `skipped` status: the transcript's notice
    // with its error type and reset time (relative: its wording depends on
    // the clock; the exact time on hover), the lane the same and its error.
    let reset = "2026-11-29T12:00:00Z";
    let skip = &seen["skip"];
    assert_eq!(skip["error_type"], "quota", "{seen:#}");
    assert!(
        [" · quota · reset ", " · quota · resets "].contains(&skip["reset"].as_str().unwrap()),
        "{seen:#}"
    );
    assert_eq!(
        (&skip["time"], &skip["title"]),
        (&json!(reset), &json!(reset)),
        "{seen:#}"
    );
    let lane = &seen["lane"];
    assert_eq!(lane["error_type"], "quota", "{seen:#}");
    assert_eq!(
        lane["error"], "quota: skipped claude: its quota is exhausted until 2026-11-29T12:00:00Z",
        "{seen:#}"
    );
    assert!(
        ["reset ", "resets "].contains(&lane["reset"].as_str().unwrap()),
        "{seen:#}"
    );
    assert_eq!(
        (&lane["time"], &lane["title"]),
        (&json!(reset), &json!(reset)),
        "{seen:#}"
    );

    // The result: the lanes from the envelope, the answer not repeated.
    browser.script(
        "onEvent(openRun, arguments[0]); return null;",
        json!([result]),
    );
    let after = eval(
        &browser,
        "return {lanes: [...document.querySelectorAll('#run-lanes .lane')].map(l => [l.dataset.provider, l.dataset.state, l.querySelector('.lane-duration').textContent,
                   l.dataset.errorType || null, (l.querySelector('.lane-reset time') || {}).dateTime || null]),
                 result: document.querySelector('#transcript .t-result').textContent,
                 status: document.getElementById('run-status').textContent};",
    );
    assert_eq!(
        after["lanes"],
        json!([
            [
                "claude",
                "skipped",
                "skipped",
                "quota",
                "2026-11-29T12:00:00Z"
            ],
            ["gemini", "ok", "2.3 s", null, null]
        ]),
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
