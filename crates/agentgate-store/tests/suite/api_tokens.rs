//! API tokens in the store (`TokenStore`), on both backends: made with
//! only their hash kept, found by it, revoked, touched, listed; and who
//! submitted a job, read back from its reserved labels.

use agentgate_store::{
    CreateTokenError, NewApiToken, Scope, Submitter, TokenLimits, create_api_token, hash_token,
};

use super::jobs::new_job;
use super::support::{TestStore, ts};

crate::on_both_backends!(
    a_token_is_made_found_by_its_hash_and_revoked,
    who_submitted_a_job_is_read_from_its_labels,
);

fn a_token_is_made_found_by_its_hash_and_revoked(store: &TestStore) {
    let tokens = store.token_store().unwrap();
    let now = ts("2026-05-01T12:00:00Z");
    let new = NewApiToken {
        name: "ci-bot".to_owned(),
        scopes: vec![Scope::Submit, Scope::Read, Scope::Submit],
        team: Some("red".to_owned()),
        expires_at: Some(ts("2026-06-01T00:00:00Z")),
        limits: TokenLimits {
            max_running: Some(2),
            budget: Default::default(),
        },
    };
    let (token, record) = create_api_token(tokens, new.clone(), now).unwrap();
    assert_eq!(record.scopes, vec![Scope::Read, Scope::Submit]);
    assert_eq!(record.hash, hash_token(&token));
    let found = tokens.find_token(&hash_token(&token)).unwrap().unwrap();
    assert_eq!(found, record);
    assert!(!found.refused_at(now));
    assert!(found.refused_at(ts("2026-06-01T00:00:00Z")));
    assert!(
        tokens
            .find_token(&hash_token("agt_other"))
            .unwrap()
            .is_none()
    );
    // The name is taken, also by a revoked token.
    assert!(matches!(
        create_api_token(tokens, new.clone(), now),
        Err(CreateTokenError::NameTaken(_))
    ));
    let empty = NewApiToken {
        name: "nothing".to_owned(),
        scopes: vec![],
        ..new.clone()
    };
    assert!(matches!(
        create_api_token(tokens, empty, now),
        Err(CreateTokenError::Invalid {
            field: "scopes",
            ..
        })
    ));
    let server = NewApiToken {
        name: "serve".to_owned(),
        ..new
    };
    assert!(matches!(
        create_api_token(tokens, server, now),
        Err(CreateTokenError::Invalid { field: "name", .. })
    ));
    tokens
        .touch_token("ci-bot", ts("2026-05-02T00:00:00Z"))
        .unwrap();
    assert!(
        tokens
            .revoke_token("ci-bot", ts("2026-05-03T00:00:00Z"))
            .unwrap()
    );
    assert!(
        !tokens
            .revoke_token("ci-bot", ts("2026-05-04T00:00:00Z"))
            .unwrap()
    );
    assert!(!tokens.revoke_token("nobody", now).unwrap());
    let listed = tokens.list_tokens().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].last_used_at, Some(ts("2026-05-02T00:00:00Z")));
    assert_eq!(listed[0].revoked_at, Some(ts("2026-05-03T00:00:00Z")));
    assert!(listed[0].refused_at(now));
}

fn who_submitted_a_job_is_read_from_its_labels(store: &TestStore) {
    let by_red = Submitter {
        token: "red-bot".to_owned(),
        team: Some("red".to_owned()),
    };
    let by_serve = Submitter {
        token: "serve".to_owned(),
        team: None,
    };
    for (id, who) in [
        ("j-red", Some(&by_red)),
        ("j-serve", Some(&by_serve)),
        ("j-none", None),
    ] {
        let mut job = new_job(id);
        job.labels.insert("ticket".to_owned(), "T-1".to_owned());
        if let Some(who) = who {
            job.labels.extend(who.labels());
        }
        store.enqueue(&job, ts("2026-05-01T12:00:00Z")).unwrap();
    }
    let ids: Vec<String> = ["j-red", "j-serve", "j-none", "j-missing"]
        .map(str::to_owned)
        .to_vec();
    let found = store.token_store().unwrap().submitters(&ids).unwrap();
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found["j-red"], by_red);
    assert_eq!(found["j-serve"], by_serve);
}
