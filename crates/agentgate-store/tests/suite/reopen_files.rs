//! `reopen_run_files`: a reopened run's events go on after the stored
//! ones, gap-free, and its `stderr.log` is appended to; on the file
//! backend a torn last line is cut first; the folder stays 700, the files
//! 600.

use std::io::Write as _;
use std::path::Path;

use agentgate_protocol::{Event, EventBody, TextDeltaEvent};
use agentgate_store::{RunStore, StoreError};

use super::support::{
    Backend, TestResult, TestStore, delta, run_record, success_envelope, temp_store,
};

crate::on_both_backends_fallible!(
    a_reopened_runs_events_go_on_after_the_stored_ones_gap_free,
    a_run_without_events_or_folder_continues_from_seq_0,
);
#[cfg(unix)]
crate::on_both_backends_fallible!(the_folder_stays_700_and_the_files_600);

/// The `seq` of every stored event, read both ways, which must agree;
/// and the events themselves.
fn stored(store: &TestStore, run_id: &str) -> TestResult<(Vec<u64>, Vec<Event>)> {
    let log = store.read_events(run_id)?;
    if let Some(tail) = log.truncated_tail {
        return Err(format!("a truncated tail: {tail:?}").into());
    }
    let lines = store.read_event_lines(run_id, None, 1000)?;
    let seqs: Vec<u64> = lines.iter().map(|l| l.seq).collect();
    let from_log: Vec<u64> = log.events.iter().map(|e| e.seq).collect();
    if seqs != from_log {
        return Err(format!("lines say {seqs:?}, the log {from_log:?}").into());
    }
    for (line, event) in lines.iter().zip(&log.events) {
        if line.line != serde_json::to_string(event)? {
            return Err(format!("line {} is not its event", line.seq).into());
        }
    }
    Ok((seqs, log.events))
}

/// A run written by a first process: inserted, `seqs` written and synced,
/// some stderr, finished.
fn first_life(store: &TestStore, run_id: &str, seqs: std::ops::Range<u64>) -> TestResult {
    store.insert_run(&run_record(run_id, "2026-05-01T12:00:00Z"))?;
    let mut files = store.create_run_files(run_id)?;
    for seq in seqs {
        files.write_event(&delta(run_id, seq))?;
    }
    files.write_stderr(b"first life\n")?;
    files.sync()?;
    drop(files);
    store.finish_run(run_id, &success_envelope(run_id))?;
    Ok(())
}

fn a_reopened_runs_events_go_on_after_the_stored_ones_gap_free(store: &TestStore) -> TestResult {
    let run_id = "run_resume";
    first_life(store, run_id, 0..3)?;

    store.reopen_run(run_id)?;
    let (mut files, next) = store.reopen_run_files(run_id)?;
    assert_eq!(next, 3);
    for seq in next..next + 3 {
        files.write_event(&delta(run_id, seq))?;
    }
    files.write_stderr(b"second life\n")?;
    files.sync()?;
    drop(files);

    let (seqs, events) = stored(store, run_id)?;
    assert_eq!(seqs, (0..6).collect::<Vec<_>>());
    assert_eq!(
        events,
        (0..6).map(|seq| delta(run_id, seq)).collect::<Vec<_>>()
    );
    let after = store.read_event_lines(run_id, Some(2), 10)?;
    assert_eq!(after.iter().map(|l| l.seq).collect::<Vec<_>>(), [3, 4, 5]);
    assert_eq!(
        std::fs::read(store.stderr_path(run_id)?)?,
        b"first life\nsecond life\n"
    );

    // And again, by a third process.
    store.finish_run(run_id, &success_envelope(run_id))?;
    store.reopen_run(run_id)?;
    let (mut files, next) = store.reopen_run_files(run_id)?;
    assert_eq!(next, 6);
    files.write_event(&delta(run_id, next))?;
    files.sync()?;
    drop(files);
    assert_eq!(stored(store, run_id)?.0, (0..7).collect::<Vec<_>>());
    Ok(())
}

fn a_run_without_events_or_folder_continues_from_seq_0(store: &TestStore) -> TestResult {
    // Its files were created, but it wrote no event.
    first_life(store, "run_empty", 0..0)?;
    store.reopen_run("run_empty")?;
    let (mut files, next) = store.reopen_run_files("run_empty")?;
    assert_eq!(next, 0);
    files.write_event(&delta("run_empty", 0))?;
    files.sync()?;
    drop(files);
    assert_eq!(stored(store, "run_empty")?.0, [0]);

    // No folder on this host at all (on PostgreSQL, a run that ran on
    // another host): it is made.
    let (files, next) = store.reopen_run_files("run_nowhere")?;
    assert_eq!(next, 0);
    assert!(files.dir().is_dir());
    assert!(store.stderr_path("run_nowhere")?.is_file());
    Ok(())
}

#[cfg(unix)]
fn mode(path: &Path) -> std::io::Result<u32> {
    use std::os::unix::fs::PermissionsExt as _;
    Ok(std::fs::metadata(path)?.permissions().mode() & 0o777)
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(unix)]
fn the_folder_stays_700_and_the_files_600(store: &TestStore) -> TestResult {
    let files_of = |run_id: &str| -> TestResult<Vec<std::path::PathBuf>> {
        let mut paths = vec![store.stderr_path(run_id)?];
        if store.backend == Backend::Sqlite {
            paths.push(store.events_path(run_id)?);
        }
        Ok(paths)
    };
    first_life(store, "run_priv", 0..2)?;
    store.reopen_run("run_priv")?;
    let (files, _) = store.reopen_run_files("run_priv")?;
    assert_eq!(mode(files.dir())?, 0o700);
    for path in files_of("run_priv")? {
        assert_eq!(mode(&path)?, 0o600, "{}", path.display());
    }
    drop(files);

    // Loosened by hand in between: private again.
    set_mode(&store.run_dir("run_priv")?, 0o755)?;
    for path in files_of("run_priv")? {
        set_mode(&path, 0o644)?;
    }
    let (files, _) = store.reopen_run_files("run_priv")?;
    assert_eq!(mode(files.dir())?, 0o700);
    for path in files_of("run_priv")? {
        assert_eq!(mode(&path)?, 0o600, "{}", path.display());
    }
    drop(files);

    // Made where missing: private from the start.
    let (files, _) = store.reopen_run_files("run_new_here")?;
    assert_eq!(mode(files.dir())?, 0o700);
    for path in files_of("run_new_here")? {
        assert_eq!(mode(&path)?, 0o600, "{}", path.display());
    }
    Ok(())
}

/// Appends `bytes` to the run's `events.jsonl` behind the store's back.
fn append_raw(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .append(true)
        .open(path)?
        .write_all(bytes)
}

#[test]
fn a_torn_last_line_is_cut_so_the_next_event_starts_its_own_line() {
    let (_dir, store) = temp_store();
    let mut files = store.create_run_files("run_torn").unwrap();
    for seq in 0..3 {
        files.write_event(&delta("run_torn", seq)).unwrap();
    }
    drop(files);
    let path = store.events_path("run_torn").unwrap();
    let whole = std::fs::read(&path).unwrap();
    // A crash in the middle of writing seq 3.
    let line = serde_json::to_vec(&delta("run_torn", 3)).unwrap();
    append_raw(&path, &line[..line.len() / 2]).unwrap();
    assert!(
        store
            .read_events("run_torn")
            .unwrap()
            .truncated_tail
            .is_some()
    );

    let (mut files, next) = store.reopen_run_files("run_torn").unwrap();
    assert_eq!(next, 3, "the torn event was never stored");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        whole,
        "cut back to the last newline"
    );
    for seq in 3..5 {
        files.write_event(&delta("run_torn", seq)).unwrap();
    }
    drop(files);

    let log = store.read_events("run_torn").unwrap();
    assert_eq!(log.truncated_tail, None);
    assert_eq!(
        log.events,
        (0..5).map(|seq| delta("run_torn", seq)).collect::<Vec<_>>()
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 5);
    assert!(text.ends_with('\n'));
}

#[test]
fn a_torn_line_longer_than_the_read_chunk_or_alone_in_the_file_is_cut_too() {
    let (_dir, store) = temp_store();
    // Alone: no newline at all, the file is emptied.
    drop(store.create_run_files("run_alone").unwrap());
    let path = store.events_path("run_alone").unwrap();
    append_raw(
        &path,
        br#"{"v":1,"ts":"2026-05-01T12:00:00Z","run_id":"run_al"#,
    )
    .unwrap();
    let (_files, next) = store.reopen_run_files("run_alone").unwrap();
    assert_eq!(next, 0);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);

    // A long event cut short, 40 kB of it written after a complete line.
    let mut files = store.create_run_files("run_long").unwrap();
    files.write_event(&delta("run_long", 0)).unwrap();
    drop(files);
    let path = store.events_path("run_long").unwrap();
    let whole = std::fs::read(&path).unwrap();
    let long = Event::new(
        "run_long",
        1,
        "2026-05-01T12:00:00Z",
        EventBody::TextDelta(TextDeltaEvent {
            text: "x".repeat(50_000),
        }),
    );
    let line = serde_json::to_vec(&long).unwrap();
    append_raw(&path, &line[..40_000]).unwrap();
    let (_files, next) = store.reopen_run_files("run_long").unwrap();
    assert_eq!(next, 1);
    assert_eq!(std::fs::read(&path).unwrap(), whole);

    // A whole event whose newline was not written: cut as well (its write
    // never returned), and its seq is the next one's.
    let mut files = store.create_run_files("run_no_nl").unwrap();
    files.write_event(&delta("run_no_nl", 0)).unwrap();
    drop(files);
    let path = store.events_path("run_no_nl").unwrap();
    let whole = std::fs::read(&path).unwrap();
    append_raw(&path, &serde_json::to_vec(&delta("run_no_nl", 1)).unwrap()).unwrap();
    let (_files, next) = store.reopen_run_files("run_no_nl").unwrap();
    assert_eq!(next, 1);
    assert_eq!(std::fs::read(&path).unwrap(), whole);
}

#[test]
fn a_whole_log_is_left_as_it_is_and_a_damaged_one_is_refused() {
    let (_dir, store) = temp_store();
    let mut files = store.create_run_files("run_whole").unwrap();
    for seq in 0..2 {
        files.write_event(&delta("run_whole", seq)).unwrap();
    }
    files.write_stderr(b"kept\n").unwrap();
    drop(files);
    let path = store.events_path("run_whole").unwrap();
    let whole = std::fs::read(&path).unwrap();
    let (files, next) = store.reopen_run_files("run_whole").unwrap();
    assert_eq!(next, 2);
    assert_eq!(std::fs::read(&path).unwrap(), whole);
    assert_eq!(
        std::fs::read(store.stderr_path("run_whole").unwrap()).unwrap(),
        b"kept\n"
    );
    drop(files);

    // A line that is not an event before the end: the damage is reported,
    // not written after.
    append_raw(&path, b"not json\n").unwrap();
    let err = store.reopen_run_files("run_whole").unwrap_err();
    assert!(
        matches!(err, StoreError::BadEventLine { line: 3, .. }),
        "{err:?}"
    );
}
