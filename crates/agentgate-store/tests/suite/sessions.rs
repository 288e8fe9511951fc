//! Sessions: logical name and provider ↔ native session id.

use agentgate_store::SessionRecord;

use super::support::{TestStore, ts};

crate::on_both_backends!(
    a_session_round_trips,
    put_replaces_the_session_but_keeps_its_creation_time,
    one_name_holds_one_session_per_provider_and_lists_in_order,
    delete_forgets_one_session_and_says_whether_it_existed,
);

fn session(name: &str, provider: &str, native: &str, at: &str) -> SessionRecord {
    SessionRecord {
        name: name.to_owned(),
        provider: provider.to_owned(),
        native_session_id: native.to_owned(),
        cwd: Some("/work/repo".to_owned()),
        created_at: ts(at),
        updated_at: ts(at),
        turns: 1,
        labels: Default::default(),
    }
}

fn a_session_round_trips(store: &TestStore) {
    let stored = session("nightly", "claude", "uuid-1", "2026-05-01T00:00:00Z");
    store.put_session(&stored).unwrap();
    assert_eq!(
        store.get_session("nightly", "claude").unwrap(),
        Some(stored)
    );
    assert_eq!(store.get_session("nightly", "codex").unwrap(), None);
    assert_eq!(store.get_session("other", "claude").unwrap(), None);
}

fn put_replaces_the_session_but_keeps_its_creation_time(store: &TestStore) {
    store
        .put_session(&session(
            "nightly",
            "claude",
            "uuid-1",
            "2026-05-01T00:00:00Z",
        ))
        .unwrap();
    let update = SessionRecord {
        native_session_id: "uuid-2".to_owned(),
        cwd: Some("/elsewhere".to_owned()),
        created_at: ts("2026-05-09T00:00:00Z"),
        updated_at: ts("2026-05-09T00:00:00Z"),
        turns: 7,
        ..session("nightly", "claude", "", "2026-05-09T00:00:00Z")
    };
    store.put_session(&update).unwrap();

    let read = store.get_session("nightly", "claude").unwrap().unwrap();
    assert_eq!(
        read,
        SessionRecord {
            created_at: ts("2026-05-01T00:00:00Z"),
            ..update
        }
    );
    assert_eq!(store.list_sessions().unwrap().len(), 1);
}

fn one_name_holds_one_session_per_provider_and_lists_in_order(store: &TestStore) {
    let at = "2026-05-01T00:00:00Z";
    store
        .put_session(&session("b", "codex", "t-1", at))
        .unwrap();
    store
        .put_session(&session("a", "codex", "t-2", at))
        .unwrap();
    store
        .put_session(&session("a", "claude", "u-1", at))
        .unwrap();

    let keys: Vec<(String, String, String)> = store
        .list_sessions()
        .unwrap()
        .into_iter()
        .map(|s| (s.name, s.provider, s.native_session_id))
        .collect();
    let expected = [
        ("a", "claude", "u-1"),
        ("a", "codex", "t-2"),
        ("b", "codex", "t-1"),
    ]
    .map(|(n, p, id)| (n.to_owned(), p.to_owned(), id.to_owned()));
    assert_eq!(keys, expected);
}

fn delete_forgets_one_session_and_says_whether_it_existed(store: &TestStore) {
    let at = "2026-05-01T00:00:00Z";
    store
        .put_session(&session("a", "claude", "u-1", at))
        .unwrap();
    store
        .put_session(&session("a", "codex", "t-1", at))
        .unwrap();

    assert!(store.delete_session("a", "claude").unwrap());
    assert!(!store.delete_session("a", "claude").unwrap());
    assert_eq!(store.get_session("a", "claude").unwrap(), None);
    assert!(store.get_session("a", "codex").unwrap().is_some());
}
