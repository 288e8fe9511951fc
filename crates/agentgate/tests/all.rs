//! The integration tests of the `agentgate` binary, in one test binary.

mod suite;
