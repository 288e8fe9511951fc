//! `agentgate-providers`: the CLIs agentgate drives, as data and decoders.
//!
//! One folder per CLI agentgate knows, and the CLIs a config file
//! describes; what every decoder shares ([`decode`], [`Decoded`]); the
//! accumulator that turns decoded output into the envelope
//! ([`Accumulator`]); and the classifier that types a run's error
//! ([`classify()`], [`ProviderTable`]). Nothing here runs a process or
//! reads a config file: the engine (`agentgate-core`) plans and runs, and
//! hands this crate a [`CliRequest`] and the lines a CLI printed.
//!
//! # The face
//!
//! The root holds the API: the [`Provider`] trait and its [`CliRequest`]
//! and [`CliCommand`]; the built-in [`Description`]s ([`BUILTIN`],
//! [`description`], [`builtin`]); the decoded output ([`Decoded`],
//! [`ProviderFinal`], [`ProviderError`]) and the [`Accumulator`]; the
//! classifier ([`classify()`], [`ClassifyInput`], [`Classified`]); logins
//! ([`Login`], [`LoginState`]); argument templates ([`Template`]); scratch
//! files ([`Scratch`]); the model gateway's routing ([`plan_upstream`]:
//! where a CLI's calls would go and with which key; [`GatewayTarget`]:
//! pointing it at a gateway instead). Public modules remain where a name reads better
//! under its module: one per built-in CLI ([`claude`], [`codex`],
//! [`gemini`], [`qwen`], [`opencode`], [`cursor`], [`agy`]: its
//! description, decoder and error table), [`custom`] (CLIs a config file
//! describes), [`argv`] (the argv-table language every description is
//! written in), [`decode`] (the shared skeleton of the decoders) and
//! [`mcp`] (the MCP server configs handed to a CLI), [`reasoning`] (each
//! CLI's knobs for reasoning effort, thinking budget and turns).
//!
//! # How a provider is made
//!
//! A built-in provider is a [`Description`] (`claude/mod.rs`): static data
//! that every other part of agentgate reads instead of matching on the
//! provider's name. It holds
//!
//! - its name, executable, verification level and features
//!   (`agentgate providers`);
//! - its command line as an argv table ([`argv`]): plain arguments,
//!   optional groups such as `["--model", "{model}"]`, the arguments of each
//!   permission mode, a group per extra directory, the caller's extra
//!   arguments and environment variables. One interpreter,
//!   [`argv::command`], reads every table, the config-described CLIs'
//!   included (`custom/`). Where a CLI needs what no table can say, the
//!   table holds a [`argv::Part::Code`] function at the place its arguments
//!   go: Gemini's system-prompt file, Codex's TOML `-c` value, Qwen's
//!   settings file, opencode's merged permission variable, the prompt
//!   argument of cursor-agent and agy;
//! - its decoder (`decode.rs`), built on the shared skeleton in
//!   [`crate::decode`];
//! - its error table (`errors.rs`), which the classifier reads;
//! - where it keeps its login ([`Login`]), which `agentgate health` reads;
//! - what to read after a run (a session file), if anything.
//!
//! # Adding a CLI
//!
//! A CLI whose command line fits the table: a folder here with its
//! `mod.rs` (the description), `decode.rs` and `errors.rs`, and one line in
//! [`BUILTIN`]. The tests of this module check every table parses and
//! says what it does with extra directories. A CLI can also be described
//! in the config file without any code (`docs/custom-providers.md`).

#![warn(missing_docs)]

mod accumulate;
pub mod agy;
pub mod argv;
mod builtin;
pub mod catalog;
mod classify;
pub mod claude;
mod cli_homes;
pub mod codex;
pub mod cursor;
pub mod custom;
pub mod decode;
mod decoded;
mod gateway_route;
pub mod gemini;
mod login;
pub mod mcp;
mod mcp_server;
pub mod opencode;
mod permission_mode;
pub mod permissions;
mod provider;
pub mod qwen;
pub mod reasoning;
pub(crate) mod registry;
mod sandbox_facts;
mod scratch;
pub mod session_logs;
pub mod skills;
mod system_settings;
mod template;
#[cfg(test)]
mod test_support;

pub use accumulate::{Accumulator, Finish, delta, strip_single_fence};
pub use builtin::{Description, ThreadHistory};
pub use classify::{
    COMMON_RULES, Classified, ClassifyInput, GENERIC, NoticePattern, ProviderTable, RetryNotice,
    Rule, StdoutSeen, classify, classify_explained, classify_with, compile_checked,
    is_retry_notice, kind_for_status, parse_reset, parse_retry_after, status_in_text,
};
pub use custom::CustomProvider;
pub use decoded::{Decoded, ProviderError, ProviderFinal};
pub use gateway_route::{
    CliEnv, GatewayTarget, Pointing, RouteError, UpstreamKey, UpstreamOverrides, UpstreamPlan,
    no_route, plan_upstream,
};
pub use login::{Login, LoginFacts, LoginProbe, LoginState, Probe, login_evidence};
pub use mcp::McpServer;
pub use permission_mode::PermissionMode;
pub use provider::{
    BinaryNotFound, CliCommand, CliRequest, CommandError, Features, PostRun, Provider,
    Verification, WarmCommand, WarmWire, binary_env_for, locate_binary, provider_env_var,
};
pub use registry::{BUILTIN, builtin, builtin_names, builtins, description, error_table};
pub use sandbox_facts::{SandboxFacts, StatePath, env_allowed};
pub use scratch::{RemovedOnDrop, Scratch, ScratchError, private_tmpdir};
pub use template::{ArgTemplate, ExpandError, Placeholder, Template, TemplateError, Values};

#[cfg(test)]
mod tests;
