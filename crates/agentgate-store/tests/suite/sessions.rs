//! Sessions: logical name and provider ↔ native session id.

use agentgate_store::{SessionRecord, SessionRotation};

use super::support::{TestStore, ts};

crate::on_both_backends!(
    a_session_round_trips,
    put_replaces_the_session_but_keeps_its_creation_time,
    one_name_holds_one_session_per_provider_and_lists_in_order,
    delete_forgets_one_session_and_says_whether_it_existed,
    a_session_keeps_its_last_context_length,
    rotations_are_kept_in_order_per_name,
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
        context_tokens: None,
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

fn a_session_keeps_its_last_context_length(store: &TestStore) {
    let first = SessionRecord {
        context_tokens: Some(180_000),
        ..session("long", "codex", "t-1", "2026-05-01T00:00:00Z")
    };
    store.put_session(&first).unwrap();
    assert_eq!(
        store
            .get_session("long", "codex")
            .unwrap()
            .unwrap()
            .context_tokens,
        Some(180_000)
    );
    // The next turn's figure replaces it; an unknown one clears it.
    store
        .put_session(&SessionRecord {
            context_tokens: None,
            turns: 2,
            ..first
        })
        .unwrap();
    assert_eq!(
        store.list_sessions().unwrap()[0].context_tokens,
        None,
        "the last turn's context, not the largest"
    );
}

fn rotation(name: &str, old: &str, new: Option<&str>, at: &str) -> SessionRotation {
    SessionRotation {
        name: name.to_owned(),
        provider: "claude".to_owned(),
        rotated_at: ts(at),
        run_id: Some(format!("r-{old}")),
        old_native_id: old.to_owned(),
        new_native_id: new.map(str::to_owned),
        reason: format!("context 2000 tokens > max_context_tokens 1000 ({old})"),
        context_tokens: Some(2000),
        max_context_tokens: Some(1000),
        handoff: "summary".to_owned(),
    }
}

fn rotations_are_kept_in_order_per_name(store: &TestStore) {
    let b2 = rotation("b", "b-2", Some("b-3"), "2026-05-03T00:00:00Z");
    let a1 = rotation("a", "a-1", None, "2026-05-01T00:00:00Z");
    let b1 = rotation("b", "b-1", Some("b-2"), "2026-05-02T00:00:00Z");
    for r in [&b2, &a1, &b1] {
        store.add_session_rotation(r).unwrap();
    }
    assert_eq!(
        store.list_session_rotations(Some("b")).unwrap(),
        vec![b1.clone(), b2.clone()]
    );
    assert_eq!(
        store.list_session_rotations(None).unwrap(),
        vec![a1, b1, b2]
    );
    assert!(
        store
            .list_session_rotations(Some("none"))
            .unwrap()
            .is_empty()
    );
}
