//! The integration tests of `agentgate-providers`, in one test binary (`suite/`: one
//! module per subject).

mod suite;
