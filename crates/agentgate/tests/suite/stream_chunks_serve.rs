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
