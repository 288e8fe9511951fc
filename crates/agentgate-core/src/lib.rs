//! `agentgate-core`: the engine of agentgate.
//!
//! One run goes: [`config`] is loaded; [`plan`] turns what the caller asks
//! ([`run_flags::RunFlags`]) into steps; [`run`] executes them: for each
//! step the provider (one of `agentgate_providers`) builds the CLI's
//! command line, `agentgate_supervise` runs it in its own process group
//! with timeouts and cancellation, the provider's decoder turns its output
//! into protocol events, the accumulator builds the result envelope and
//! the classifier types the error; failover moves to the next step when
//! that is safe, and the run is written to the store (`agentgate_store`'s
//! traits: this crate takes the store without its backends; a program that
//! opens one enables them).
//!
//! Layers, lowest first: the leaves (`settings`, `retry_on`, `run_flags`,
//! `read_limit`, `redact`, `prompt`, ...), `approvals`, `warm`, `request`
//! (a run asked for as data), `config`, `quota`, `plan`, `run`, and the
//! session host; no module imports one above it.

#![warn(missing_docs)]

pub mod approvals;
pub mod config;
pub mod cron;
pub mod health;
pub mod output_schema;
pub mod plan;
pub mod prompt;
pub mod provider_listing;
pub mod quota;
pub mod quota_report;
pub mod read_limit;
pub mod redact;
pub mod request;
pub mod retry_on;
pub mod run;
pub mod run_flags;
pub mod sealed;
pub mod session_host;
pub mod settings;
pub mod warm;
pub mod workspace;
