//! The integration tests of `agentgate-server`, in one test binary (`suite/`: one
//! module per subject).

mod suite;
