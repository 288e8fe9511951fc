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
