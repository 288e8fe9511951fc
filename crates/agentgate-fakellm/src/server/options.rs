//! What a server is started with: [`ServerConfig`] (a script and a log,
//! plain HTTP: what most callers need) and [`ServerOptions`] (a script or
//! a recording, the log, and TLS), which every `start` accepts.

use std::path::PathBuf;

use crate::replay::Recording;
use crate::script::Script;
use crate::tls::Tls;

/// How to start a server playing a script over plain HTTP (the common
/// case; [`ServerOptions`] says everything, and every `start` takes either).
#[derive(Debug, Clone, Default)]
pub struct ServerConfig {
    /// The script to play (the default model when empty).
    pub script: Script,
    /// Append one JSON line per request to this file.
    pub log_path: Option<PathBuf>,
}

impl ServerConfig {
    /// The same server, over HTTPS with `tls`.
    pub fn with_tls(self, tls: Tls) -> ServerOptions {
        ServerOptions {
            tls: Some(tls),
            ..ServerOptions::from(self)
        }
    }
}

/// What answers the model requests.
#[derive(Debug, Clone)]
pub enum Answers {
    /// A script's turns.
    Script(Script),
    /// A gateway recording's responses, in order, per API.
    Replay(Recording),
}

impl Default for Answers {
    fn default() -> Self {
        Answers::Script(Script::default())
    }
}

/// Everything a server is started with.
#[derive(Debug, Clone, Default)]
pub struct ServerOptions {
    /// A script or a recording.
    pub answers: Answers,
    /// Append one JSON line per request to this file.
    pub log_path: Option<PathBuf>,
    /// Serve HTTPS with this certificate and key (plain HTTP when `None`).
    pub tls: Option<Tls>,
    /// Answer a model request that does not carry this API key (in
    /// `x-api-key`, `authorization: Bearer`, `x-goog-api-key` or the query's
    /// `key=`) with 401 in its API's shape, as a real API does.
    pub require_key: Option<String>,
}

impl From<ServerConfig> for ServerOptions {
    fn from(config: ServerConfig) -> Self {
        ServerOptions {
            answers: Answers::Script(config.script),
            log_path: config.log_path,
            tls: None,
            require_key: None,
        }
    }
}
