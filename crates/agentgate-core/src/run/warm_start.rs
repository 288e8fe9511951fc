//! A warm process started, with what runs beside it: its sandbox
//! (`--sandbox`: the process starts inside it, its egress proxy and
//! container live as long as it does) and its model gateway (`--gateway`:
//! one gateway serves every turn of the process, each turn taking its own
//! totals and counting its limits afresh). Both are kept in the process's
//! [`WarmBeside`], which the holder ends after the process; each turn
//! reads it back ([`beside`]) for the gateway's notices, the egress
//! proxy's refusals and the envelope's `gateway` and `sandbox`.

use agentgate_gateway::GatewayNotice;
use agentgate_protocol::ErrorKind;
use agentgate_providers::{CliRequest, Provider};
use agentgate_supervise::SupervisorConfig;
use std::time::Duration;

use super::emitter::Emitter;
use super::gateway_attempt::AttemptGateway;
use super::options::RunContext;
use super::sandbox_attempt::{AttemptSandbox, Confinement};
use crate::warm::modes::warm_plan;
use crate::warm::process::WarmProcess;
use crate::warm::sessions::{Beside, Warm};

/// What runs beside a warm process.
pub(super) struct WarmBeside {
    pub gateway: Option<AttemptGateway>,
    pub sandbox: Option<AttemptSandbox>,
}

impl std::fmt::Debug for WarmBeside {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WarmBeside")
            .field("gateway", &self.gateway.is_some())
            .field("sandbox", &self.sandbox.is_some())
            .finish()
    }
}

impl Beside for WarmBeside {
    fn end(self: Box<Self>) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
        Box::pin(self.end_now())
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

impl WarmBeside {
    /// The gateway stopped, the egress proxy stopped, the container
    /// removed, the sandbox's files removed.
    async fn end_now(self) {
        if let Some(g) = self.gateway {
            g.shutdown().await;
        }
        if let Some(s) = self.sandbox {
            let report = s.finish().await;
            for warning in report.warnings {
                tracing::warn!("warm process's sandbox: {warning}");
            }
        }
    }

    /// The next thing to tell the turn: a call of the gateway, or a
    /// destination the egress proxy refused; pending forever when neither
    /// runs.
    pub(super) async fn next(&mut self) -> BesideNotice {
        let WarmBeside { gateway, sandbox } = self;
        let call = async {
            match gateway.as_mut() {
                Some(g) => g.next().await,
                None => std::future::pending().await,
            }
        };
        let egress = super::sandbox_attempt::next_egress_refusal(sandbox);
        tokio::select! {
            Some(n) = call => BesideNotice::Gateway(Box::new(n)),
            Some(refused) = egress => BesideNotice::Egress(refused),
            else => std::future::pending().await,
        }
    }
}

/// What [`WarmBeside::next`] gives.
pub(super) enum BesideNotice {
    Gateway(Box<GatewayNotice>),
    Egress(String),
}

/// The warm process's [`WarmBeside`], if it has one.
pub(super) fn beside(warm: &mut Warm) -> Option<&mut WarmBeside> {
    warm.beside
        .as_deref_mut()
        .and_then(|b| b.as_any_mut().downcast_mut::<WarmBeside>())
}

/// Start the warm process for `req`: inside its step's sandbox, pointed
/// at its step's gateway.
pub(super) async fn start(
    ctx: RunContext<'_>,
    step: &crate::plan::Step,
    req: &CliRequest,
    program: &std::path::Path,
    fingerprint: u64,
    em: &mut Emitter<'_>,
) -> Result<Box<Warm>, (ErrorKind, String)> {
    let provider: &dyn Provider = step.provider.as_ref();
    let invalid = |why: String| (ErrorKind::InvalidInput, why);
    if step.gateway.as_ref().is_some_and(|g| g.record_model_calls) {
        return Err(invalid(
            "--record-model-calls keeps one run's model calls in its folder, and a warm process's gateway serves one run after another: record them without --warm (or permission mode ask)".to_owned(),
        ));
    }
    // The sandbox's private folders first (the gateway of `strict` serves
    // on a socket in one), then the gateway: the command points the CLI
    // at it.
    let mut sandbox = AttemptSandbox::prepare(step.sandbox.as_ref()).map_err(invalid)?;
    let socket = sandbox.as_ref().and_then(AttemptSandbox::gateway_socket);
    let (gateway, pointed) = match super::gateway_attempt::start(ctx, step, req, em, socket)
        .await
        .map_err(invalid)?
    {
        Some((g, r)) => (Some(g), Some(r)),
        None => (None, None),
    };
    let req = pointed.as_ref().unwrap_or(req);
    let supervisor = SupervisorConfig {
        keeper: ctx.options.keeper.clone(),
        ..SupervisorConfig::default()
    };
    let mut plan = match warm_plan(provider, req, program, ctx.scratch, supervisor) {
        None => {
            let e = agentgate_providers::CommandError::no_long_lived_mode(provider.name());
            return Err(invalid(e.to_string()));
        }
        Some(Err(e)) => return Err(invalid(e.to_string())),
        Some(Ok(plan)) => plan,
    };
    if let Some(g) = &gateway {
        g.seal(&mut plan.start.invocation).map_err(invalid)?;
    }
    // Last: the long-lived process's whole invocation confined.
    if let Some(s) = sandbox.as_mut() {
        let at = Confinement {
            provider,
            agentgate: ctx.options.keeper.as_deref(),
            scratch: ctx.scratch,
            runs_dir: ctx.store.map(|s| s.runs_dir()),
            hidden: &ctx.options.hidden,
            edit_scope: &step.edit_scope,
            command_files: &plan.files,
            mcp_servers: &req.mcp_servers,
            gateway_port: gateway.as_ref().and_then(AttemptGateway::port),
            run_id: &em.run_id,
        };
        let notice = s
            .confine(&mut plan.start.invocation, at)
            .await
            .map_err(invalid)?;
        em.notice(notice);
    }
    let cumulative = plan.cumulative_usage;
    // Removed here unless the process starts and takes them.
    let mut files = agentgate_providers::RemovedOnDrop(plan.files);
    if plan.load_needs_a_later_minute
        && let Some(id) = req.resume.as_deref()
        && let Some(born) = born_at(ctx, provider.name(), id)
    {
        wait_for_a_later_minute(born, provider.name(), em).await;
    }
    let beside = (gateway.is_some() || sandbox.is_some()).then(|| WarmBeside { gateway, sandbox });
    match WarmProcess::start(plan.start).await {
        Ok(process) => {
            let files = std::mem::take(&mut files.0);
            let mut warm = Warm::new(process, fingerprint, cumulative, files);
            warm.beside = beside.map(|b| Box::new(b) as Box<dyn Beside>);
            Ok(Box::new(warm))
        }
        Err(e) => {
            // A container the engine started goes too.
            if let Some(b) = beside {
                b.end_now().await;
            }
            Err(start_error(provider.name(), program, e))
        }
    }
}

/// Why the warm process could not start, as the attempt's error.
fn start_error(
    provider: &str,
    program: &std::path::Path,
    e: crate::warm::process::WarmError,
) -> (ErrorKind, String) {
    use crate::warm::process::WarmError;
    match e {
        WarmError::Spawn(e @ agentgate_supervise::SuperviseError::ProgramNotFound { .. }) => (
            ErrorKind::InvalidInput,
            format!("failed to run {}: {e}", program.display()),
        ),
        e @ WarmError::WrongModel(_) => (
            ErrorKind::InvalidModel,
            format!("{provider}'s warm process could not start: {e}"),
        ),
        e => (
            ErrorKind::ProviderError,
            format!("{provider}'s warm process could not start: {e}"),
        ),
    }
}

/// When session `native_id` was created: as this holder saw it, else (a
/// holder that started after it, such as a new session host) when the
/// store first recorded the session's name, which is no earlier.
fn born_at(ctx: RunContext<'_>, provider: &str, native_id: &str) -> Option<std::time::SystemTime> {
    if let Some(born) = ctx.options.warm.as_ref().and_then(|h| h.born_at(native_id)) {
        return Some(born);
    }
    let name = ctx.plan.session.as_deref()?;
    let record = ctx.store?.get_session(name, provider).ok()??;
    (record.native_session_id == native_id).then(|| std::time::SystemTime::from(record.created_at))
}

/// Wait until the wall clock is past the minute `born` is in (see
/// [`agentgate_providers::WarmCommand::load_needs_a_later_minute`]).
async fn wait_for_a_later_minute(
    born: std::time::SystemTime,
    provider: &str,
    em: &mut Emitter<'_>,
) {
    let minute = |t: std::time::SystemTime| {
        t.duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() / 60)
            .unwrap_or(0)
    };
    let now = std::time::SystemTime::now();
    if minute(now) != minute(born) {
        return;
    }
    let into = now
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() % 60_000)
        .unwrap_or(0) as u64;
    let wait = Duration::from_millis(60_000 - into + 100);
    em.notice(format!(
        "waiting {}s to resume the session: {provider} destroys a session loaded in the minute it was created in (gemini-cli #28775)",
        wait.as_secs()
    ));
    tokio::time::sleep(wait).await;
}
