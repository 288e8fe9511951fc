//! The integration tests of `agentgate-toolkit`, in one test binary (`suite/`: one
//! module per subject).

mod suite;
