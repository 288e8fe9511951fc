//! `GET /v1/runs/{id}/events?coalesce=...` of a real `agentgate serve`:
//! the run's events as they are (ids their seqs), with the answer's
//! chunks among them as messages without an id, cut at paragraphs, the
//! last before the `result`; a bad parameter is a 400 that names it.

use agentgate_store::{JobQueue, RunStore};
use jiff::Timestamp;

use super::serve::Home;
use super::serve_api::{job, start, store_of};
use super::serve_events::{claim, finish, result, text};
use super::serve_support::get;
use super::sse_client::stream;

const TOKEN: &str = "api-test-token-0123456789abcdef012";

#[test]
fn the_events_stream_carries_the_answer_in_chunks_when_asked() {
    let home = Home::new("0");
    let server = start(&home, &[]);
    let store = store_of(&home);
    store
        .enqueue(&job("chunky", &["claude"], None), Timestamp::now())
        .unwrap();
    let token = claim(&store, "chunky");
    let mut files = store.create_run_files("chunky").unwrap();
    let deltas = [
        "First para",
        "graph here.\n",
        "\nSecond ",
        "paragraph, longer.\n\n```\ncode\n\n",
        "more code\n```\n",
        "Last words",
    ];
    for (seq, d) in deltas.iter().enumerate() {
        files.write_event(&text("chunky", seq as u64, d)).unwrap();
    }
    files
        .write_event(&result("chunky", deltas.len() as u64))
        .unwrap();
    finish(&store, "chunky", &token);

    let path = "/v1/runs/chunky/events?coalesce=paragraph&coalesce_min_interval=0&coalesce_idle=0";
    let all = stream(&server.url, path, TOKEN, None).rest();
    let (chunks, events): (Vec<_>, Vec<_>) = all.iter().partition(|m| m.id.is_none());
    // The protocol events as without the parameter: every seq, in order.
    let ids: Vec<String> = events.iter().map(|m| m.id.clone().unwrap()).collect();
    let want: Vec<String> = (0..=deltas.len()).map(|i| i.to_string()).collect();
    assert_eq!(ids, want);
    let texts: Vec<String> = chunks
        .iter()
        .map(|m| {
            let v = m.json();
            assert_eq!(v["type"], "answer_chunk", "{v}");
            v["text"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(texts.concat(), deltas.concat());
    assert_eq!(
        texts,
        [
            "First paragraph here.\n\n",
            "Second paragraph, longer.\n\n",
            "```\ncode\n\nmore code\n```\n",
            "Last words"
        ]
    );
    // The last chunk comes before the result, which ends the stream.
    assert_eq!(all.last().unwrap().json()["type"], "result");
    assert_eq!(all[all.len() - 2].json()["text"], "Last words");

    // Without the parameter: no chunk.
    let plain = stream(&server.url, "/v1/runs/chunky/events", TOKEN, None).rest();
    assert!(plain.iter().all(|m| m.id.is_some()));

    // A bad value is refused, naming the parameter.
    for (query, parameter) in [
        ("coalesce=words", "coalesce"),
        ("coalesce=size&coalesce_max_chars=0", "coalesce_max_chars"),
        ("coalesce_idle=2s", "coalesce_idle"),
    ] {
        let r = get(
            &server.url,
            &format!("/v1/runs/chunky/events?{query}"),
            Some(TOKEN),
        );
        assert_eq!(r.status, 400, "{query}");
        assert!(
            r.json().to_string().contains(parameter),
            "{query}: {}",
            r.json()
        );
    }
}

/// A stand-in `claude`: its answer, three paragraphs in one message.
const PARAGRAPH_CLAUDE: &str = r#"#!/bin/sh
cat > /dev/null
printf '%s\n' '{"type":"system","subtype":"init","session_id":"s-para","model":"m"}'
printf '%s\n' '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"One paragraph.\n\nTwo paragraphs.\n\nThree."}]},"session_id":"s-para"}'
printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"result":"One paragraph.\n\nTwo paragraphs.\n\nThree.","session_id":"s-para"}'
"#;

#[test]
fn submit_stream_coalesce_prints_the_chunks_of_a_served_run() {
    use std::os::unix::fs::PermissionsExt;

    use super::serve_support::{Env, Serve};
    use super::support::run_bounded;

    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let bin = home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join("claude"), PARAGRAPH_CLAUDE).unwrap();
    std::fs::set_permissions(bin.join("claude"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let server = Serve::start(
        &Env {
            home,
            bin: &bin,
            vars: vec![("AGENTGATE_TOKEN", TOKEN.to_owned())],
        },
        &[],
    );
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agentgate"));
    cmd.args(["submit", "--server", &server.url, "--stream", "--coalesce"])
        .args([
            "sentence",
            "--coalesce-min-interval",
            "0",
            "--coalesce-max-chars",
            "20",
        ])
        .args(["-p", "claude", "go"])
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("HOME", home)
        .env("AGENTGATE_TOKEN", TOKEN)
        .current_dir(home);
    let run = run_bounded(cmd, std::time::Duration::from_secs(120));
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let events: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let texts: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "answer_chunk")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        ["One paragraph.\n\n", "Two paragraphs.\n\n", "Three."]
    );
    let last = events.last().unwrap();
    assert_eq!(last["type"], "result");
    assert_eq!(last["envelope"]["response"], texts.concat());
    let (status, _, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
}

const TAIL_PARAGRAPHS: [&str; 3] = [
    "The first paragraph says what the change is about.",
    "The second one explains why the old code read the file twice.",
    "The last one says what is left to do.",
];

/// `agentgate tail RUN --coalesce ...`: the events of a run the REAL
/// Claude Code made through a real `agentgate serve` (against `agentgate
/// fake-llm`), with the answer's chunks among them as `run --stream
/// --coalesce` prints them; without `--coalesce`, none; a bad option
/// value is a usage error (exit 2).
#[test]
fn tail_coalesce_prints_the_chunks_of_a_served_run() {
    use agentgate_fakellm::clients::Cli;

    use super::serve_support::serve_with_cli_env;
    use super::support::{Client, FakeServer, run_bounded};

    let answer = TAIL_PARAGRAPHS.join("\n\n");
    let script = format!(
        "turns:\n  - text: {}\n    chunk_chars: 7\n    repeat: true\n",
        serde_json::to_string(&answer).unwrap()
    );
    let fake = FakeServer::start(&script);
    let client = Client::new(Cli::Claude, &fake);
    let serve_home = tempfile::tempdir().unwrap();
    let serve = serve_with_cli_env(serve_home.path(), &client.setup.env, TOKEN, &[]);
    let agentgate = |args: &[&str]| {
        let mut cmd = client.agentgate();
        cmd.args(args)
            .env("AGENTGATE_SERVER", &serve.url)
            .env("AGENTGATE_TOKEN", TOKEN);
        run_bounded(cmd, std::time::Duration::from_secs(180))
    };
    let program = client.program.display().to_string();
    let submitted = agentgate(&[
        "submit",
        "-p",
        "claude",
        "--binary",
        &program,
        "--model",
        &client.setup.model,
        "explain the change",
    ]);
    assert_eq!(submitted.code, Some(0), "{}", submitted.all_output());
    let accepted: serde_json::Value = serde_json::from_str(submitted.stdout.trim()).unwrap();
    let run_id = accepted["run_id"].as_str().unwrap();

    // Followed from the start (while it runs, or after: the same events).
    let tailed = agentgate(&[
        "tail",
        run_id,
        "--coalesce",
        "paragraph",
        "--coalesce-min-interval",
        "0",
        "--coalesce-max-chars",
        "70",
    ]);
    assert_eq!(tailed.code, Some(0), "{}", tailed.all_output());
    let events: Vec<serde_json::Value> = tailed
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let chunks: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "answer_chunk")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    let last = events.last().unwrap();
    assert_eq!(last["type"], "result", "{}", tailed.stdout);
    assert_eq!(last["envelope"]["response"], answer);
    assert_eq!(chunks.concat(), answer, "{chunks:#?}");
    // One paragraph a chunk (two would pass 70 characters), each but the
    // last cut after its blank line.
    assert_eq!(chunks.len(), TAIL_PARAGRAPHS.len(), "{chunks:#?}");
    for (chunk, paragraph) in chunks.iter().zip(TAIL_PARAGRAPHS) {
        assert!(chunk.starts_with(paragraph), "{chunks:#?}");
    }
    // The protocol events are all there, as without the option.
    let plain = agentgate(&["tail", run_id]);
    assert_eq!(plain.code, Some(0), "{}", plain.all_output());
    let kinds_and_seqs = |lines: Vec<serde_json::Value>| -> Vec<(String, u64)> {
        lines
            .iter()
            .filter(|e| e["type"] != "answer_chunk")
            .map(|e| {
                (
                    e["type"].as_str().unwrap().to_owned(),
                    e["seq"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let plain: Vec<serde_json::Value> = plain
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(plain.iter().all(|e| e["type"] != "answer_chunk"));
    assert_eq!(kinds_and_seqs(events.clone()), kinds_and_seqs(plain));

    let bad = agentgate(&["tail", run_id, "--coalesce", "words"]);
    assert_eq!(bad.code, Some(2), "{}", bad.all_output());
    let bad = agentgate(&["tail", run_id, "--coalesce-idle", "2s"]);
    assert_eq!(
        bad.code,
        Some(2),
        "--coalesce-idle needs --coalesce: {}",
        bad.all_output()
    );
}
