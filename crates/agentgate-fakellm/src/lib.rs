//! `agentgate-fakellm`: a scripted model server that speaks the wire
//! protocols of the Anthropic Messages API, the OpenAI Responses and Chat
//! Completions APIs and the Gemini API, so that real agent CLIs can run
//! offline and deterministically against it. It plays a [`Script`], or
//! replays a [`Recording`] of the model gateway; over HTTP, or HTTPS with
//! a [`Tls`] certificate ([`ServerOptions`]).
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use agentgate_fakellm::{FakeLlm, Script, ServerConfig};
//! let script = Script::parse("turns:\n  - text: hi\n").map_err(std::io::Error::other)?;
//! let server = FakeLlm::start(
//!     "127.0.0.1:0".parse().map_err(std::io::Error::other)?,
//!     ServerConfig { script, log_path: None },
//! )
//! .await?;
//! println!("{}", server.url());
//! server.shutdown().await
//! # }
//! ```

pub mod api;
pub mod clients;
pub mod engine;
pub mod fault;
pub mod headers;
mod help;
pub mod log;
mod models;
pub mod replay;
pub mod reply;
pub mod request;
pub mod script;
pub mod server;
pub mod tls;
pub mod tools;

pub use help::SCRIPT_HELP;
pub use log::LogEntry;
pub use replay::Recording;
pub use request::{Api, ChatRequest, Message, Role, ToolDecl};
pub use script::{Script, ScriptError};
pub use server::{Answers, FakeLlm, ServerConfig, ServerOptions};
pub use tls::Tls;
