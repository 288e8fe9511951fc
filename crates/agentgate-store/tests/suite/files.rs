//! The per-run folder: `events.jsonl` and `stderr.log`.

use std::io::Write as _;

use agentgate_protocol::{Event, EventBody, ResultEvent, StartEvent, TextDeltaEvent};
use agentgate_store::{EVENTS_FILE_NAME, RunStore, STDERR_FILE_NAME, StoreError, TruncatedTail};

use super::support::{Backend, TestStore, success_envelope, temp_store};

crate::on_both_backends!(
    events_written_through_the_store_read_back_in_seq_order,
    the_run_folder_keeps_stderr_whatever_the_backend,
    a_run_is_opened_for_writing_once,
);

/// `create_run_files` opens the backend's event log; what is synced reads
/// back as events, as lines (exactly as encoded) and from a given `seq`.
fn events_written_through_the_store_read_back_in_seq_order(store: &TestStore) {
    let mut files = store.create_run_files("run_ev").unwrap();
    let written = events("run_ev");
    for event in &written {
        files.write_event(event).unwrap();
    }
    files.sync().unwrap();

    let log = store.read_events("run_ev").unwrap();
    assert_eq!(log.events, written, "unknown event types are kept");
    assert_eq!(log.truncated_tail, None);
    let lines = store.read_event_lines("run_ev", None, 100).unwrap();
    let expected: Vec<(u64, String)> = written
        .iter()
        .map(|e| (e.seq, serde_json::to_string(e).unwrap()))
        .collect();
    assert_eq!(
        lines
            .iter()
            .map(|l| (l.seq, l.line.clone()))
            .collect::<Vec<_>>(),
        expected
    );
    let page = store.read_event_lines("run_ev", Some(1), 2).unwrap();
    assert_eq!(page.iter().map(|l| l.seq).collect::<Vec<_>>(), [2, 3]);
    assert!(
        store
            .read_event_lines("run_ev", Some(4), 10)
            .unwrap()
            .is_empty()
    );
    assert!(
        store
            .read_event_lines("run_none", None, 10)
            .unwrap()
            .is_empty()
    );
    match store.backend {
        Backend::Sqlite => assert_eq!(
            store.events_file("run_ev").unwrap(),
            Some(store.events_path("run_ev").unwrap())
        ),
        Backend::Postgres => assert_eq!(store.events_file("run_ev").unwrap(), None),
    }
    drop(files);
}

fn the_run_folder_keeps_stderr_whatever_the_backend(store: &TestStore) {
    let files = store.create_run_files("run_err").unwrap();
    assert_eq!(files.dir(), store.runs_dir().join("run_err"));
    let (_events, mut stderr) = files.into_writers();
    stderr.write_bytes(b"warning: first\n").unwrap();
    assert_eq!(
        std::fs::read(store.stderr_path("run_err").unwrap()).unwrap(),
        b"warning: first\n"
    );
}

fn a_run_is_opened_for_writing_once(store: &TestStore) {
    let _first = store.create_run_files("run_once").unwrap();
    let err = store.create_run_files("run_once").unwrap_err();
    assert!(matches!(err, StoreError::RunFilesExist { .. }), "{err:?}");
    let err = store.create_run_files("../out").unwrap_err();
    assert!(matches!(err, StoreError::InvalidRunId { .. }), "{err:?}");
}

pub fn events(run_id: &str) -> Vec<Event> {
    let ts = "2026-05-01T12:00:00.123Z";
    let unknown: Event = serde_json::from_str(&format!(
        r#"{{"v":1,"ts":"{ts}","run_id":"{run_id}","seq":3,"type":"from_the_future","x":[1,2]}}"#
    ))
    .unwrap();
    assert!(matches!(unknown.body, EventBody::Unknown(_)));
    vec![
        Event::new(
            run_id,
            0,
            ts,
            EventBody::Start(StartEvent {
                model: Some("opus".to_owned()),
                cwd: Some("/work".to_owned()),
                ..StartEvent::default()
            }),
        )
        .with_attempt("claude", 1),
        Event::new(
            run_id,
            1,
            ts,
            EventBody::TextDelta(TextDeltaEvent {
                text: "Hel".to_owned(),
            }),
        )
        .with_attempt("claude", 1),
        Event::new(
            run_id,
            2,
            ts,
            EventBody::TextDelta(TextDeltaEvent {
                text: "lo\nwith a newline and ünïcode".to_owned(),
            }),
        )
        .with_attempt("claude", 1),
        unknown,
        Event::new(
            run_id,
            4,
            ts,
            EventBody::Result(ResultEvent {
                envelope: Box::new(success_envelope(run_id)),
            }),
        ),
    ]
}

#[test]
fn events_round_trip_and_are_readable_while_the_run_writes() {
    let (_dir, store) = temp_store();
    let mut files = store.create_run_files("run_ev").unwrap();
    assert_eq!(files.dir(), store.runs_dir().join("run_ev"));
    let written = events("run_ev");
    for event in &written {
        files.write_event(event).unwrap();
    }

    // Read while the writer is still open: nothing waits in a buffer.
    let log = store.read_events("run_ev").unwrap();
    assert_eq!(log.events, written);
    assert_eq!(log.truncated_tail, None);

    let text = std::fs::read_to_string(store.events_path("run_ev").unwrap()).unwrap();
    assert_eq!(text.lines().count(), written.len());
    drop(files);
}

#[test]
fn a_truncated_last_line_is_reported_not_fatal() {
    let (_dir, store) = temp_store();
    let mut files = store.create_run_files("run_cut").unwrap();
    let written = events("run_cut");
    for event in &written {
        files.write_event(event).unwrap();
    }
    files.sync().unwrap();
    drop(files);

    // A crash in the middle of the next write.
    let path = store.events_path("run_cut").unwrap();
    let partial = br#"{"v":1,"ts":"2026-05-01T12:00:00.123Z","run_id":"run_cut","seq":5,"ty"#;
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(partial)
        .unwrap();

    let log = store.read_events("run_cut").unwrap();
    assert_eq!(log.events, written);
    let tail = log.truncated_tail.unwrap();
    assert_eq!((tail.line, tail.bytes), (written.len() + 1, partial.len()));
    assert!(!tail.error.is_empty());
    let _: TruncatedTail = tail;
}

#[test]
fn a_damaged_line_before_the_end_is_an_error_naming_the_line() {
    let (_dir, store) = temp_store();
    let mut files = store.create_run_files("run_bad").unwrap();
    let written = events("run_bad");
    files.write_event(&written[0]).unwrap();
    drop(files);
    let path = store.events_path("run_bad").unwrap();
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    file.write_all(b"not json\n").unwrap();
    file.write_all(&serde_json::to_vec(&written[1]).unwrap())
        .unwrap();
    file.write_all(b"\n").unwrap();

    let err = store.read_events("run_bad").unwrap_err();
    assert!(
        matches!(&err, StoreError::BadEventLine { line: 2, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains(EVENTS_FILE_NAME), "{err}");
}

#[test]
fn reading_the_events_of_a_run_without_files_names_the_file() {
    let (_dir, store) = temp_store();
    let err = store.read_events("run_none").unwrap_err();
    assert!(matches!(err, StoreError::Io { .. }), "{err:?}");
    assert!(err.to_string().contains("run_none"), "{err}");
}

#[test]
fn stderr_is_appended_raw_and_the_writers_split() {
    let (_dir, store) = temp_store();
    let files = store.create_run_files("run_err").unwrap();
    let (mut events_writer, mut stderr) = files.into_writers();
    stderr.write_bytes(b"warning: first\n").unwrap();
    stderr.write_bytes(&[0xff, 0xfe, b' ', b'x']).unwrap();
    writeln!(stderr, " and more").unwrap();
    let event = &events("run_err")[1];
    events_writer.write_event(event).unwrap();

    let path = store.stderr_path("run_err").unwrap();
    assert_eq!(
        path,
        store.runs_dir().join("run_err").join(STDERR_FILE_NAME)
    );
    assert_eq!(stderr.path(), path);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        b"warning: first\n\xff\xfe x and more\n"
    );
    assert_eq!(
        store.read_events("run_err").unwrap().events,
        std::slice::from_ref(event)
    );
}

#[test]
fn a_run_folder_is_created_once() {
    let (_dir, store) = temp_store();
    let mut first = store.create_run_files("run_once").unwrap();
    first.write_event(&events("run_once")[0]).unwrap();

    let err = store.create_run_files("run_once").unwrap_err();
    assert!(matches!(err, StoreError::RunFilesExist { .. }), "{err:?}");
    // The first writer's file is untouched.
    assert_eq!(store.read_events("run_once").unwrap().events.len(), 1);
}

#[test]
fn an_invalid_run_id_creates_nothing() {
    let (dir, store) = temp_store();
    for run_id in ["../outside", "a/b", ".."] {
        let err = store.create_run_files(run_id).unwrap_err();
        assert!(matches!(err, StoreError::InvalidRunId { .. }), "{err:?}");
    }
    assert!(!dir.path().join("outside").exists());
    assert_eq!(std::fs::read_dir(store.runs_dir()).unwrap().count(), 0);
}

#[cfg(unix)]
#[test]
fn run_folders_and_files_are_private_to_the_user() {
    use std::os::unix::fs::PermissionsExt as _;

    let (_dir, store) = temp_store();
    let files = store.create_run_files("run_priv").unwrap();
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(files.dir()), 0o700);
    assert_eq!(mode(&store.events_path("run_priv").unwrap()), 0o600);
    assert_eq!(mode(&store.stderr_path("run_priv").unwrap()), 0o600);
}
