//! `agentgate mcp`: the tool registry as a Model Context Protocol server on
//! stdio, built on the official Rust SDK (`rmcp`).
//!
//! Each registry tool is one MCP tool whose input schema is made from its
//! manifest's `inputs`. A call becomes the seed's `--name value` arguments
//! and runs through the same runner as `agentgate tool` (the same policy,
//! limits, sandbox and store; the run's `parent_run_id` is the agent run
//! the server was started for). While it runs, each `progress` message of
//! the tool is an MCP progress notification (when the client sent a
//! progress token); the client's cancellation creates the tool's
//! `CANCEL_FILE`. The tool's whole result envelope is the call's result
//! (`structuredContent`, and the same JSON as text): an `error` status is
//! an MCP tool error (`isError: true`), and `action_required` comes back
//! as a normal result whose `actions` list the decisions the tool asks
//! for, for the agent to answer by calling it again.
//!
//! Lines the server cannot use are answered as JSON-RPC 2.0 says (`-32700`
//! for one that is not JSON, `-32600` for JSON that repeats a key or is no
//! message), and it goes on serving (`transport.rs`).

//!
//! Started for an agent by agentgate (`agentgate mcp --relay SOCKET`), the
//! server runs nothing itself: the agentgate process that runs the agent
//! runs the tools and records them (`relay.rs` says why).

mod host;
mod relay;
mod server;
mod transport;

pub use host::{CallOutcome, ListedTool, McpTool, Progress, ToolCall, ToolHost};
pub use relay::{RelayClient, RelayLine, RelayRequest, ToolRelay};
pub use server::{McpToolServer, serve_stdio};
pub use transport::{INVALID_REQUEST, MAX_LINE_BYTES, PARSE_ERROR, StrictLines};
