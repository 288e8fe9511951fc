//! Helpers shared by the tests.

use agentgate_protocol::{
    Attempt, Envelope, ErrorInfo, ErrorKind, ErrorSource, Metadata, TokensUsed,
};
use agentgate_store::{RunRecord, Store};
use jiff::Timestamp;
use tempfile::TempDir;

/// A fresh store in its own temporary folder (kept alive by the `TempDir`).
pub fn temp_store() -> (TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("agentgate.db")).unwrap();
    (dir, store)
}

pub fn ts(text: &str) -> Timestamp {
    text.parse().unwrap()
}

pub fn run_record(run_id: &str, started_at: &str) -> RunRecord {
    RunRecord {
        run_id: run_id.to_owned(),
        started_at: ts(started_at),
        providers: vec!["claude".to_owned(), "codex".to_owned()],
        model: Some("opus".to_owned()),
        session: Some("nightly".to_owned()),
        cwd: Some("/work/repo".to_owned()),
        prompt_bytes: 1234,
    }
}

/// A success envelope with every figure set.
pub fn success_envelope(run_id: &str) -> Envelope {
    Envelope {
        response: "done".to_owned(),
        session_id: Some("sess-native-1".to_owned()),
        tokens_used: TokensUsed {
            input_tokens: 1500,
            output_tokens: 300,
            estimated_output_tokens: 1,
            total_tokens: 1800,
            cost_usd: Some(0.0123),
            cache_read_input_tokens: 1000,
            cache_creation_input_tokens: 200,
            estimated: false,
        },
        metadata: Metadata {
            token_usage_available: true,
            ..Metadata::default()
        },
        provider: Some("codex".to_owned()),
        model: Some("gpt-5-codex".to_owned()),
        duration_ms: 4321,
        attempts: vec![Attempt {
            provider: "codex".to_owned(),
            duration_ms: 4000,
            exit_code: Some(0),
            ..Attempt::default()
        }],
        reasoning_tokens: 120,
        context_tokens: Some(1800),
        ..Envelope::new(run_id)
    }
}

/// A failure envelope of `kind`.
pub fn failure_envelope(run_id: &str, kind: ErrorKind, exit_code: i32) -> Envelope {
    let error = ErrorInfo::new(kind, ErrorSource::Structured, format!("{kind} happened"));
    Envelope {
        provider: Some("claude".to_owned()),
        duration_ms: 99,
        ..Envelope::new(run_id)
    }
    .with_error(&error, exit_code)
}
