//! The integration tests of the `agentgate` binary, in one test binary.
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers fail the test by panicking"
)]

mod suite;
