//! The integration tests of `agentgate-fixtures`, in one test binary (`suite/`: one
//! module per subject).

mod suite;
