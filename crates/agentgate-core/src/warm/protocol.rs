//! What every long-lived mode offers the host, whatever its wire: the
//! lines that open a session and start a turn, what each line the CLI
//! prints means ([`Inbound`]), and the lines that answer a permission
//! request or interrupt a turn. A [`WarmProtocol`] holds no process and
//! does no I/O: `process.rs` writes and reads, the turn engine decides.

use serde_json::Value;

use crate::approvals::ToolCall;

/// A permission request of the CLI, before a tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionAsk {
    /// The CLI's id of the request (a string or a JSON-RPC id), sent back
    /// with the answer.
    pub cli_id: Value,
    /// What the call is about, for the policy.
    pub call: ToolCall,
    /// The call's input as the CLI gave it.
    pub input: Value,
    /// The tool call's id in the stream, if the CLI says.
    pub tool_use_id: Option<String>,
}

/// How a permission request is answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Run the call as asked.
    Allow,
    /// Refuse it; the agent is told `message`.
    Deny {
        /// Why, in words the agent reads.
        message: String,
    },
}

/// What one line of the CLI means to the host.
#[derive(Debug, Clone, PartialEq)]
pub enum Inbound {
    /// Output of the turn: for the provider's decoder (events).
    Output(Vec<u8>),
    /// A permission request: answer it with [`WarmProtocol::answer`].
    Ask(PermissionAsk),
    /// The CLI withdrew a request it made (the turn was interrupted): its
    /// `cli_id`.
    Withdrawn(Value),
    /// The turn ended (after its closing output line).
    TurnEnd,
    /// A line to write back at once (e.g. the refusal of a request the
    /// host does not support).
    Reply(String),
    /// The session is open (the CLI named it): turns may start.
    Opened {
        /// The CLI's native session id.
        session_id: String,
    },
    /// The CLI refused one of the host's requests (the session could not
    /// be opened, a turn could not start): its words.
    Refused(String),
    /// The session opened with another model than the one asked for (the
    /// CLI does not know it): why.
    WrongModel(String),
    /// Nothing for the host (an answer to its own request).
    Nothing,
}

/// One CLI's long-lived mode, as lines.
pub trait WarmProtocol: Send + std::fmt::Debug {
    /// The lines to write once the process started, before the first turn.
    fn open(&mut self) -> Vec<String>;
    /// Whether a turn may start without waiting for [`Inbound::Opened`].
    fn opened_at_start(&self) -> bool {
        true
    }
    /// Whether the session just opened may still print lines of its own
    /// (a loaded session's history, replayed after the load's response):
    /// the process reads and drops them until its output goes quiet, then
    /// calls [`Self::replay_done`].
    fn replays_after_open(&self) -> bool {
        false
    }
    /// The replay after opening is over: what comes next is the turns'.
    fn replay_done(&mut self) {}
    /// The lines that start a turn with `prompt`.
    fn turn(&mut self, prompt: &str) -> Vec<String>;
    /// What `line` (one stdout line, without its terminator) means.
    fn read(&mut self, line: &[u8]) -> Vec<Inbound>;
    /// The lines that answer `ask`.
    fn answer(&mut self, ask: &PermissionAsk, answer: &Answer) -> Vec<String>;
    /// The lines that interrupt the running turn (it still ends with
    /// [`Inbound::TurnEnd`]).
    fn interrupt(&mut self) -> Vec<String>;
}
