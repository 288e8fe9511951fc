//! One client's run in the host: planned as the client would plan it
//! (its config file, its store, the environment the host shares with it),
//! run with the host's holder of warm sessions, streamed back.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use agentgate_protocol::{EXIT_USAGE, Event};
use agentgate_store::{RunStore, StoreBackend, StoreLocation};
use tokio::sync::mpsc;

use super::{HostLine, HostRequest};
use crate::config::Config;
use crate::plan::{self, Plan, now_from_env};
use crate::run::{
    CancelRequest, EventSink, RunOptions, ToolServer, ToolServerSource, append_audit, audit_line,
};
use crate::warm::sessions::WarmSessions;

/// What the host's connections share.
pub(super) struct Host {
    /// The warm processes.
    pub sessions: WarmSessions,
    keeper: Option<PathBuf>,
    /// The stores clients chose, opened once each.
    stores: RefCell<HashMap<String, Arc<dyn StoreBackend>>>,
    /// Where the registry tools come from.
    tools: Option<Arc<dyn ToolServerSource>>,
}

impl Host {
    pub fn new(
        sessions: WarmSessions,
        keeper: Option<PathBuf>,
        tools: Option<Arc<dyn ToolServerSource>>,
    ) -> Self {
        Host {
            sessions,
            keeper,
            stores: RefCell::default(),
            tools,
        }
    }

    /// The tool server of `request`'s config and store, when it asks for
    /// tools.
    fn tool_server(&self, request: &HostRequest) -> Result<Option<ToolServer>, String> {
        let Some(cwd) = &request.tools_from else {
            return Ok(None);
        };
        match &self.tools {
            Some(source) => source
                .tool_server(&request.config, cwd, &request.store)
                .map(Some),
            None => Err("this session host cannot offer registry tools".to_owned()),
        }
    }

    fn store(&self, text: &str) -> Result<Arc<dyn StoreBackend>, String> {
        if let Some(s) = self.stores.borrow().get(text) {
            return Ok(s.clone());
        }
        let location = StoreLocation::parse(text).map_err(|e| e.to_string())?;
        let store = agentgate_store::store_choice::open(&location).map_err(|e| e.to_string())?;
        self.stores
            .borrow_mut()
            .insert(text.to_owned(), store.clone());
        Ok(store)
    }
}

/// The run's events, as lines for the client.
struct LineSink(mpsc::UnboundedSender<HostLine>);

impl EventSink for LineSink {
    fn emit(&mut self, event: &Event) {
        // A client that went away gets nothing more; the run goes on to
        // its end (cancelled) and is recorded.
        let _ = self.0.send(HostLine::Event {
            event: Box::new(event.clone()),
        });
    }
}

/// Run `request` and send its lines to `out`: events, then `end` (or
/// `refused` when it cannot start).
pub(super) async fn run_turn(
    host: &Host,
    request: HostRequest,
    out: mpsc::UnboundedSender<HostLine>,
    cancel: mpsc::Receiver<CancelRequest>,
) {
    let ready = prepare(host, &request)
        .and_then(|(plan, store)| Ok((plan, store, host.tool_server(&request)?)));
    let (plan, store, tool_server) = match ready {
        Ok(ready) => ready,
        Err(message) => {
            let _ = out.send(HostLine::Refused {
                message,
                exit_code: EXIT_USAGE,
            });
            return;
        }
    };
    for w in &plan.warnings {
        let _ = out.send(HostLine::Warning { message: w.clone() });
    }
    let options = RunOptions {
        keeper: host.keeper.clone(),
        tool_server,
        warm: Some(host.sessions.clone()),
        ..RunOptions::default()
    };
    let mut sink = LineSink(out.clone());
    let run_store: &dyn RunStore = store.as_ref();
    let outcome = crate::run::run(&plan, &options, Some(run_store), &mut sink, cancel).await;
    let audit = audit_line(&outcome.envelope, outcome.exit_code);
    let log = store.runs_dir().with_file_name("audit.log");
    if let Err(e) = append_audit(&log, &audit) {
        tracing::warn!("failed to append to {}: {e}", log.display());
    }
    let _ = out.send(HostLine::End {
        envelope: Box::new(outcome.envelope),
        exit_code: outcome.exit_code,
        audit,
    });
}

/// The plan and the store of `request`, or why there is none.
fn prepare(host: &Host, request: &HostRequest) -> Result<(Plan, Arc<dyn StoreBackend>), String> {
    if !request.request.warm {
        return Err("the session host runs warm runs only (--warm --session NAME)".to_owned());
    }
    let config = Config::load_source(request.config.clone()).map_err(|e| e.to_string())?;
    // A warm request without a session is refused here.
    let (mut flags, task) = request.request.to_flags().map_err(|e| e.to_string())?;
    // The client's `--sandbox`: the warm process starts inside it.
    if request.sandbox.is_some() {
        flags.sandbox = request.sandbox;
    }
    flags.now = now_from_env()?;
    let mut plan = plan::plan(&config, &flags, task).map_err(|e| e.to_string())?;
    plan.warm_idle = request.request.warm_idle().map_err(|e| e.to_string())?;
    let store = host.store(&request.store).map_err(|e| {
        format!(
            "--session needs the run store (it maps the name to the provider's session id): {e}"
        )
    })?;
    Ok((plan, store))
}
