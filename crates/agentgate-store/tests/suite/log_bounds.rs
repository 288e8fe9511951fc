//! The line limit and the log bound, on each backend: a run's event log
//! past its bound keeps only the events that frame the run, after one
//! note, its `result` always; an event over the line limit is written cut
//! to fit; a line over the limit that an older writer left (a file line, a
//! row) is read as the note that stands for it, never whole.

use agentgate_protocol::{Event, EventBody, MAX_LINE_BYTES, MessageEvent, ResultEvent, StartEvent};
use agentgate_store::DEFAULT_EVENT_LOG_MAX;

use super::support::{Backend, TestStore, delta, run_record, success_envelope, with_pg_client};

crate::on_both_backends!(
    a_log_past_its_bound_keeps_the_frame_and_the_result_after_one_note,
    an_event_over_the_line_limit_is_written_cut_to_fit,
    an_over_long_line_left_by_an_older_writer_is_read_as_its_note,
);

fn event(run_id: &str, seq: u64, body: EventBody) -> Event {
    Event::new(run_id, seq, "2026-05-01T12:00:00.000Z", body)
}

fn a_log_past_its_bound_keeps_the_frame_and_the_result_after_one_note(store: &TestStore) {
    assert_eq!(store.event_log_bound(), DEFAULT_EVENT_LOG_MAX);
    store.set_event_log_bound(1024 * 1024);
    store
        .insert_run(&run_record("run_b", "2026-05-01T12:00:00Z"))
        .unwrap();
    let mut files = store.create_run_files("run_b").unwrap();
    let chunk = "c".repeat(100 * 1024);
    let mut seq = 0;
    let mut write = |body: EventBody| {
        files.write_event(&event("run_b", seq, body)).unwrap();
        seq += 1;
    };
    write(EventBody::Start(StartEvent::default()));
    // 20 messages of 100 KiB: the bound (1 MiB) passes at the 11th.
    for _ in 0..20 {
        write(EventBody::Message(MessageEvent {
            text: chunk.clone(),
        }));
    }
    write(EventBody::Result(ResultEvent {
        envelope: Box::new(success_envelope("run_b")),
    }));
    files.sync().unwrap();
    drop(files);

    let log = store.read_events("run_b").unwrap();
    let kinds: Vec<(u64, &str)> = log
        .events
        .iter()
        .map(|e| (e.seq, e.body.type_name()))
        .collect();
    let mut expected = vec![(0, "start")];
    expected.extend((1..=11).map(|seq| (seq, "message")));
    expected.extend([(12, "log"), (21, "result")]);
    assert_eq!(kinds, expected);
    let EventBody::Log(note) = &log.events[12].body else {
        unreachable!()
    };
    assert!(
        note.message.contains("reached its bound of 1048576 bytes"),
        "{}",
        note.message
    );
}

fn an_event_over_the_line_limit_is_written_cut_to_fit(store: &TestStore) {
    store
        .insert_run(&run_record("run_c", "2026-05-01T12:00:00Z"))
        .unwrap();
    let mut files = store.create_run_files("run_c").unwrap();
    let huge = event(
        "run_c",
        0,
        EventBody::Message(MessageEvent {
            text: "h".repeat(MAX_LINE_BYTES + 1000),
        }),
    );
    files.write_event(&huge).unwrap();
    files.write_event(&delta("run_c", 1)).unwrap();
    files.sync().unwrap();
    drop(files);
    let lines = store.read_event_lines("run_c", None, 10).unwrap();
    assert_eq!(lines.len(), 2);
    assert!(
        lines[0].line.len() <= MAX_LINE_BYTES,
        "{}",
        lines[0].line.len()
    );
    let back: Event = serde_json::from_str(&lines[0].line).unwrap();
    assert!(
        back.cut
            .is_some_and(|c| c.original_bytes > MAX_LINE_BYTES as u64)
    );
    assert!(matches!(back.body, EventBody::Message(m) if m.text.len() > MAX_LINE_BYTES / 2));
}

fn an_over_long_line_left_by_an_older_writer_is_read_as_its_note(store: &TestStore) {
    store
        .insert_run(&run_record("run_o", "2026-05-01T12:00:00Z"))
        .unwrap();
    let mut files = store.create_run_files("run_o").unwrap();
    files.write_event(&delta("run_o", 0)).unwrap();
    files.sync().unwrap();
    drop(files);
    let long = format!(
        "{{\"v\":1,\"ts\":\"2026-05-01T12:00:01.000Z\",\"run_id\":\"run_o\",\"seq\":1,\
         \"type\":\"message\",\"text\":\"{}\"}}",
        "o".repeat(MAX_LINE_BYTES)
    );
    match store.backend {
        Backend::Sqlite => {
            let path = store.events_file("run_o").unwrap().unwrap();
            let mut text = std::fs::read_to_string(&path).unwrap();
            text.push_str(&long);
            text.push('\n');
            text.push_str(&serde_json::to_string(&delta("run_o", 2)).unwrap());
            text.push('\n');
            std::fs::write(&path, text).unwrap();
        }
        Backend::Postgres => with_pg_client(&store.location, async |client| {
            let last = serde_json::to_string(&delta("run_o", 2)).unwrap();
            client
                .execute(
                    "INSERT INTO run_events (run_id, seq, line) VALUES ('run_o', 1, $1), \
                     ('run_o', 2, $2)",
                    &[&long, &last],
                )
                .await
                .unwrap();
        }),
    }
    let log = store.read_events("run_o").unwrap();
    let seqs: Vec<(u64, &str)> = log
        .events
        .iter()
        .map(|e| (e.seq, e.body.type_name()))
        .collect();
    assert_eq!(seqs, [(0, "text_delta"), (1, "log"), (2, "text_delta")]);
    let note = &log.events[1];
    assert_eq!(note.cut.map(|c| c.original_bytes), Some(long.len() as u64));
    assert_eq!(note.ts, "2026-05-01T12:00:01.000Z");
    let lines = store.read_event_lines("run_o", Some(0), 10).unwrap();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].line.len() < 1024, "the note, not the line");
    assert!(
        lines[0].line.contains("over the line limit"),
        "{}",
        lines[0].line
    );
}
