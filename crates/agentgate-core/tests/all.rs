//! The integration tests of `agentgate-core`, in one test binary (`suite/`: one
//! module per subject).
//!
//! The decoder tests here (`decode_opencode`, `decode_replay`,
//! `no_final_record`) are the engine's: they put real captures through
//! `parse_capture`, the run's own pipeline (decoder, accumulator,
//! classifier, and the emitter that numbers and redacts events), which
//! lives in this crate. Tests of a decoder or classifier alone are
//! `agentgate-providers`'.

mod suite;
