//! The integration tests of `agentgate-supervise`, in one test binary (`suite/`: one
//! module per subject).

mod suite;
