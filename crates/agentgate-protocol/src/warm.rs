//! A turn of a warm session in the contract: which process served it (one
//! kept alive across turns, a new one, or a replacement of one that died
//! or was ended), counted in the envelope's `warm`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How the turn got its process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WarmProcessState {
    /// The session had no warm process: one was started (resuming the
    /// session's native id when the store knew one).
    Started,
    /// The session's warm process, alive from an earlier turn, served it.
    Reused,
    /// The session's warm process had died, gone idle past its time or
    /// been started for other settings: a new one resumed its native
    /// session (`replaced_because` says why).
    Replaced,
}

/// The envelope's `warm`: the process that served a warm turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WarmReport {
    /// How the turn got its process.
    pub process: WarmProcessState,
    /// The process group's id (the pid of its leader, agentgate's keeper).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pgid: Option<u32>,
    /// Which turn of this process it was (1 for a new one).
    pub turn: u32,
    /// Why the earlier process was replaced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaced_because: Option<String>,
}
