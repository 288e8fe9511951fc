//! The store's integration tests: a real SQLite file in a temporary folder
//! and a fresh database on the PostgreSQL test cluster
//! (`AGENTGATE_TEST_POSTGRES`); `on_both_backends!` runs a test on each.
#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers and backend-generic tests outside #[test] functions fail by panicking"
)]

mod suite;
