//! The integration tests of `agentgate-fakellm`, in one test binary (`suite/`: one
//! module per subject).

mod suite;
