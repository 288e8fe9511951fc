//! The bells of stored events: a writer of this process rings the run's
//! bell once the line can be read (SQLite: after the file's write;
//! PostgreSQL: after the batch's commit), and a PostgreSQL batch notifies
//! `agentgate_events` for the other processes at its commit.

use std::time::Duration;

use agentgate_store::EVENTS_CHANNEL;
use agentgate_store::bells::{self, Bell, BellWatch};
use tokio_postgres::AsyncMessage;

use super::support::{Backend, TestStore, delta};

/// The longest a test waits for a bell or a notification.
const WAIT: Duration = Duration::from_secs(20);

/// Whether `watch` rings within `wait`.
fn rings(watch: &mut BellWatch, wait: Duration) -> bool {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async { tokio::time::timeout(wait, watch.rung()).await.is_ok() })
}

fn a_written_event_rings_its_runs_bell_once_readable(backend: Backend, run_id: &str) {
    let store = TestStore::new(backend);
    let mut watch = bells::watch(Bell::Events(run_id.to_owned()));
    let mut files = store.create_run_files(run_id).unwrap();
    assert!(bells::written_here(run_id), "the writer marks its run");
    assert!(
        !rings(&mut watch, Duration::from_millis(100)),
        "nothing written yet"
    );
    files.write_event(&delta(run_id, 0)).unwrap();
    assert!(rings(&mut watch, WAIT), "no bell for a written event");
    // Rung: the line can be read now, without a sync.
    let lines = store.read_event_lines(run_id, None, 10).unwrap();
    assert_eq!(lines.len(), 1, "{lines:?}");
    drop(files);
    assert!(!bells::written_here(run_id));
}

#[test]
fn a_line_written_to_the_file_rings_its_runs_bell() {
    a_written_event_rings_its_runs_bell_once_readable(Backend::Sqlite, "run_bell_file");
}

#[test]
fn a_committed_batch_rings_its_runs_bell() {
    a_written_event_rings_its_runs_bell_once_readable(Backend::Postgres, "run_bell_table");
}

#[test]
fn a_stored_batch_notifies_other_processes_at_its_commit() {
    let store = TestStore::new(Backend::Postgres);
    let url = store.location.clone();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let payload = rt.block_on(async {
        let (client, mut connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .unwrap();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Some(Ok(message)) =
                std::future::poll_fn(|cx| connection.poll_message(cx)).await
            {
                if let AsyncMessage::Notification(n) = message {
                    let _ = tx.send((n.channel().to_owned(), n.payload().to_owned()));
                }
            }
        });
        client
            .batch_execute(&format!("LISTEN {EVENTS_CHANNEL}"))
            .await
            .unwrap();
        let writer = tokio::task::spawn_blocking({
            let store = store.reopen();
            move || {
                let mut files = store.create_run_files("run_notified").unwrap();
                files.write_event(&delta("run_notified", 0)).unwrap();
                files.sync().unwrap();
            }
        });
        writer.await.unwrap();
        let heard = tokio::time::timeout(WAIT, rx.recv()).await;
        drop(client);
        heard.ok().flatten()
    });
    let (channel, payload) = payload.expect("no notification within the wait");
    assert_eq!(channel, EVENTS_CHANNEL);
    let (tag, run_id) = payload.split_once(':').unwrap();
    assert_eq!(run_id, "run_notified");
    assert!(!tag.is_empty(), "{payload}");
}

#[test]
fn sqlite_has_no_listener_for_other_processes() {
    let store = TestStore::new(Backend::Sqlite);
    assert!(store.listen_for_bells().unwrap().is_none());
}

#[test]
fn the_postgres_listener_hears_while_it_lives() {
    let store = TestStore::new(Backend::Postgres);
    let listener = store
        .listen_for_bells()
        .unwrap()
        .expect("PostgreSQL listens");
    let start = std::time::Instant::now();
    while !bells::hears_other_processes() {
        assert!(start.elapsed() < WAIT, "the listener never said it hears");
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(listener);
}
