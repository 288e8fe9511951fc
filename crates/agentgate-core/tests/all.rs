//! The integration tests of `agentgate-core`, in one test binary (`suite/`: one
//! module per subject).

mod suite;
