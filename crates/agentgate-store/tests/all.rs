//! The store's integration tests: a real SQLite file in a temporary folder.
#![expect(
    clippy::unwrap_used,
    reason = "test helpers outside #[test] functions fail by panicking"
)]

mod suite;
