//! The library's single entry point: an [`Engine`] holds a config and runs
//! [`RunRequest`]s through it, as `agentgate run` does.
//!
//! One call goes: the request is checked and turned into flags
//! ([`RunRequest::to_flags`]), planned against the config ([`plan`]), and
//! the plan is run ([`run`]) without a store (nothing is recorded, sessions
//! are not mapped) and without a cancel (the run ends on its own: its
//! timeouts still apply). A caller that needs a store, a sink for the
//! events or a cancel calls [`plan`] and [`run`] itself, as the binary and
//! the executor do; the engine is the short path over them. It sits above
//! every other module and nothing in the crate imports it.

use std::path::PathBuf;

use crate::config::{Config, ConfigError, ConfigSource};
use crate::plan::{PlanError, plan};
use crate::request::{RequestError, RunRequest};
use crate::run::{NullSink, RunOptions, RunOutcome, run};

/// What a plan warns of (a prompt near its size limit, a setting a
/// provider ignores), handed to the caller's [`Engine::on_warning`].
type WarningHandler = Box<dyn Fn(&str) + Send + Sync>;

/// A config ready to run requests: `Engine::from_config_file(path)?`
/// then `engine.run(request)` (blocking) or `engine.run_async(request)`
/// (inside a tokio runtime).
pub struct Engine {
    config: Config,
    options: RunOptions,
    on_warning: Option<WarningHandler>,
}

/// Why a request did not run. A run that ran and failed (the CLI's error,
/// a timeout) is not an `EngineError`: it is a [`RunOutcome`] with its
/// envelope's error and exit code.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The config file could not be read or is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The request was refused before planning (which field, and why).
    #[error(transparent)]
    Request(#[from] RequestError),
    /// The request could not be planned against the config (an unknown
    /// chain, agent or provider, a missing file).
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// [`Engine::run`] could not build its runtime.
    #[error("cannot start the runtime: {0}")]
    Runtime(std::io::Error),
    /// [`Engine::run`] was called on a thread of a tokio runtime, where it
    /// cannot block: call [`Engine::run_async`] there.
    #[error("Engine::run blocks and was called inside a tokio runtime: use Engine::run_async")]
    InsideRuntime,
}

impl Engine {
    /// An engine over `config`, with the default [`RunOptions`].
    pub fn new(config: Config) -> Engine {
        Engine {
            config,
            options: RunOptions::default(),
            on_warning: None,
        }
    }

    /// An engine over the config file at `path` (as `--config FILE`).
    pub fn from_config_file(path: impl Into<PathBuf>) -> Result<Engine, EngineError> {
        Ok(Engine::new(Config::read(ConfigSource::Flag(path.into()))?))
    }

    /// Run with these options (a keeper, a heartbeat, a tool server)
    /// instead of the defaults.
    #[must_use]
    pub fn with_options(mut self, options: RunOptions) -> Engine {
        self.options = options;
        self
    }

    /// Hand each warning of a plan to `handler` (by default they are
    /// dropped).
    #[must_use]
    pub fn on_warning(mut self, handler: impl Fn(&str) + Send + Sync + 'static) -> Engine {
        self.on_warning = Some(Box::new(handler));
        self
    }

    /// The config this engine runs with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Run `request` to its end on a runtime of its own, blocking the
    /// calling thread. Inside a tokio runtime, use [`Engine::run_async`].
    pub fn run(&self, request: &RunRequest) -> Result<RunOutcome, EngineError> {
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(EngineError::InsideRuntime);
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(EngineError::Runtime)?;
        runtime.block_on(self.run_async(request))
    }

    /// Run `request` to its end on the caller's tokio runtime.
    pub async fn run_async(&self, request: &RunRequest) -> Result<RunOutcome, EngineError> {
        let (flags, task) = request.to_flags()?;
        let plan = plan(&self.config, &flags, task)?;
        if let Some(handler) = &self.on_warning {
            for warning in &plan.warnings {
                handler(warning);
            }
        }
        // Nothing cancels this run; keep the sender so the channel stays open.
        let (_cancel, cancel_rx) = tokio::sync::mpsc::channel(1);
        Ok(run(&plan, &self.options, None, &mut NullSink, cancel_rx).await)
    }
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("options", &self.options)
            .field("on_warning", &self.on_warning.is_some())
            .finish_non_exhaustive()
    }
}
