//! `agentgate-core`: the engine of agentgate.
//!
//! One run goes: [`provider`] plans the CLI invocation, [`supervise`] runs it
//! in its own process group with timeouts and cancellation, the provider's
//! [`decode`]r turns its output into protocol events, [`accumulate`] builds
//! the result envelope and [`classify`] types the error. [`run`] ties them
//! together and writes the run to the store.

pub mod accumulate;
pub mod classify;
pub mod config;
pub mod decode;
pub mod health;
pub mod output_schema;
pub mod prompt;
pub mod provider;
pub mod run;
pub mod supervise;
pub mod workspace;
