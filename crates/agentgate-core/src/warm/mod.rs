//! Warm sessions: a CLI kept alive across turns in its long-lived mode.
//!
//! - [`protocol`]: what every long-lived mode offers the host, as lines
//!   ([`WarmProtocol`], [`Inbound`]);
//! - [`claude`]: Claude Code's stream-json input with stdio permission
//!   requests;
//! - [`acp`]: the Agent Client Protocol of Gemini CLI, Qwen Code and
//!   opencode (`opencode acp`), and
//!   [`acp_decode`] a turn's updates as events;
//! - [`codex`]: `codex app-server` (JSON-RPC threads and turns, command and
//!   file change approvals), and [`codex_decode`] its notifications as
//!   the events of a cold Codex run.
//!
//! - [`process`]: one warm process under the supervisor, driven a turn at
//!   a time, its steps handed to the caller.
//!
//! - [`approve`]: a turn's permission requests answered (the policy, a
//!   person within the ask timeout, never the same refused call twice),
//!   as events;
//! - [`pool`]: the warm processes a holder keeps (per-provider limit, least
//!   recently used ended first, idle end).
//!
//! - [`modes`]: a provider's long-lived command line and wire, as a
//!   process's start;
//! - [`sessions`]: a holder's warm sessions (the pool shared by its runs,
//!   the idle watch);
//! - [`desk`]: where people's answers to `ask` decisions reach the run
//!   waiting for them.
//!
//! The turn itself (an attempt of the run engine) is
//! the run engine's `run/warm_attempt.rs`.

pub mod acp;
pub mod acp_decode;
pub mod approve;
pub mod claude;
pub mod codex;
pub mod codex_decode;
pub mod desk;
pub mod modes;
pub mod pool;
pub mod process;
pub mod protocol;
pub mod sessions;

pub use protocol::{Answer, Inbound, PermissionAsk, WarmProtocol};

/// What each decoded item is, in a word a test can compare: an event's
/// type, `final:<text>` for the final record, the debug form otherwise.
#[cfg(test)]
pub(crate) fn labels(out: &[agentgate_providers::Decoded]) -> Vec<String> {
    out.iter()
        .map(|d| match d {
            agentgate_providers::Decoded::Event(b) => b.type_name().to_owned(),
            agentgate_providers::Decoded::Final(f) => {
                format!("final:{}", f.text.clone().unwrap_or_default())
            }
            other => format!("{other:?}"),
        })
        .collect()
}
