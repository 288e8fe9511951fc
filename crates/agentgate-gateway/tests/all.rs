//! The integration tests of `agentgate-gateway`'s endpoint and forwarding,
//! in one test binary (`suite/`: one module per subject). Every server
//! listens on 127.0.0.1:0: agentgate-fakellm where a real model API is
//! needed, small hand-written ones for the upstreams that misbehave.
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers fail the test by panicking"
)]

mod suite;
