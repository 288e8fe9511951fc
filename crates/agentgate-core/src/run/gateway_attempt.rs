//! A step's model gateway for one attempt (`--gateway`, `gateway:`).
//!
//! Before the CLI starts: where its model calls would go and with which
//! credentials (the provider's `plan_upstream`, from the environment the
//! CLI would get and the config's overrides), a gateway started in front
//! of that upstream (holding the real key, the CLI getting a stub), and
//! the request pointed at it (`CliRequest::gateway`: each CLI's own base
//! URL setting). The real key joins the run's redactor.
//!
//! While it runs: each call the gateway saw is a `model_call` event and a
//! quota update (`quota::record_wire_quota`: headroom before any 429); a
//! limit crossed stops the CLI and makes the attempt's error `budget`.
//!
//! After it: the envelope's `gateway` report (calls, the wire's usage
//! beside the CLI's, each difference), and the envelope's usage taken
//! from the wire (`metadata.usage_source: wire`) when the wire reported
//! any.

use std::sync::Arc;

use agentgate_gateway::{CallLimits, Gateway, GatewayConfig, GatewayNotice, KeyMode};
use agentgate_protocol::{
    Envelope, ErrorInfo, ErrorKind, ErrorSource, EventBody, GatewayReport, LogLevel, TokensUsed,
    Usage, UsageSource,
};
use agentgate_providers::{
    CliEnv, CliRequest, GatewayTarget, UpstreamKey, UpstreamOverrides, plan_upstream,
};
use tokio::sync::mpsc::UnboundedReceiver;

use super::attempt_end::AttemptOutcome;
use super::emitter::Emitter;
use super::options::RunContext;
use crate::plan::{Step, StepGateway};

/// The proxy variables passed to the gateway (it reaches the upstream from
/// agentgate's own environment, not the CLI's).
const PROXY_VARIABLES: [&str; 6] = [
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
];

/// The gateway of one attempt.
pub(super) struct AttemptGateway {
    /// `None` once shut down.
    gateway: Option<Gateway>,
    notices: UnboundedReceiver<GatewayNotice>,
    open: bool,
    key_mode: &'static str,
    crossed: Option<ErrorInfo>,
    quota_key: String,
    hold_above: Option<f64>,
    /// The real key the gateway holds, to keep it out of the CLI's
    /// invocation ([`AttemptGateway::seal`]).
    real_key: Option<String>,
    /// What each run it serves redacts: the real key, the path's secret,
    /// the stub ([`AttemptGateway::redact_in`]).
    secrets: Vec<String>,
}

/// Start the gateway of an attempt of `step` when it has one: the
/// gateway, and the request pointed at it. `Err` is why it could not
/// start (the attempt's `invalid_input`).
pub(super) async fn start(
    ctx: RunContext<'_>,
    step: &Step,
    request: &CliRequest,
    em: &mut Emitter<'_>,
    unix_socket: Option<std::path::PathBuf>,
) -> Result<Option<(AttemptGateway, CliRequest)>, String> {
    let Some(settings) = &step.gateway else {
        return Ok(None);
    };
    let provider = step.provider.name();
    let cli_env = CliEnv::for_request(request);
    let overrides = UpstreamOverrides {
        upstream: settings.upstream.clone(),
        key_env: settings.key_env.clone(),
        key_file: settings.key_file.clone(),
    };
    let home = ctx.plan.home.as_deref();
    let plan = plan_upstream(
        provider,
        &cli_env,
        home,
        request.model.as_deref(),
        &overrides,
    )
    .map_err(|e| format!("the model gateway cannot serve {provider}: {e}"))?;
    let real_key = match &plan.key {
        UpstreamKey::ApiKey { value, .. } => Some(value.clone()),
        UpstreamKey::Passthrough { .. } => None,
    };
    let (key, key_mode, key_text) = match &plan.key {
        UpstreamKey::ApiKey { value, from } => {
            // The real key is a secret of the run from now on.
            redact(em, [value.as_str()]);
            (
                KeyMode::ApiKey {
                    real: value.clone(),
                    stub: stub_key()?,
                },
                "api_key",
                format!("the key of {from} held by the gateway, the CLI given a stub"),
            )
        }
        UpstreamKey::Passthrough { login } => (
            KeyMode::Passthrough,
            "passthrough",
            format!("{login} passed through"),
        ),
    };
    let mut config = gateway_config(ctx, settings, &plan.upstream, key, em)?;
    // `--sandbox strict`: the CLI, in a network namespace of its own,
    // reaches the gateway through this socket (its port relayed to it).
    config.unix_socket = unix_socket;
    let (gateway, notices) = Gateway::start(config)
        .await
        .map_err(|e| format!("the model gateway for {provider} failed to start: {e}"))?;
    // The path's secret and the stub are the run's secrets too (Codex
    // gets the URL in its arguments, opencode the stub in a variable whose
    // name says nothing).
    let secrets: Vec<String> = real_key
        .iter()
        .map(String::as_str)
        .chain(gateway.base_url().rsplit('/').next())
        .chain(gateway.stub_key())
        .map(str::to_owned)
        .collect();
    redact(em, secrets.iter().map(String::as_str));
    em.log(
        LogLevel::Info,
        format!(
            "model gateway for {provider}: {} calls to {} ({key_text})",
            plan.api.as_str(),
            plan.upstream
        ),
    );
    for note in &plan.notes {
        em.log(LogLevel::Info, note.clone());
    }
    let mut pointed = request.clone();
    // A variable of the request that holds the real key is not the CLI's
    // (the command sets the stub in its place).
    if let Some(key) = &real_key {
        let held: Vec<String> = pointed
            .env
            .iter()
            .filter(|(_, v)| v.contains(key.as_str()))
            .map(|(k, _)| k.clone())
            .collect();
        pointed.env.retain(|(_, v)| !v.contains(key.as_str()));
        pointed.env_remove.extend(held);
    }
    pointed.gateway = Some(GatewayTarget {
        base_url: gateway.base_url().to_owned(),
        stub_key: gateway.stub_key().map(str::to_owned),
        plan,
    });
    Ok(Some((
        AttemptGateway {
            gateway: Some(gateway),
            notices,
            open: true,
            key_mode,
            crossed: None,
            quota_key: step.quota_key.clone(),
            hold_above: ctx.plan.quota_hold_above,
            real_key,
            secrets,
        },
        pointed,
    )))
}

/// `values` join the run's redactor.
fn redact<'a>(em: &mut Emitter<'_>, values: impl IntoIterator<Item = &'a str>) {
    let mut more = em.redactor().to_builder();
    for v in values {
        more.value(v);
    }
    em.set_redactor(more.build());
}

/// A stub key: random, recognisable, worthless outside its gateway.
fn stub_key() -> Result<String, String> {
    let hex = super::random_hex::random_hex(16, "the stub key")?;
    Ok(format!("agentgate-stub-{hex}"))
}

fn gateway_config(
    ctx: RunContext<'_>,
    settings: &StepGateway,
    upstream: &str,
    key: KeyMode,
    em: &mut Emitter<'_>,
) -> Result<GatewayConfig, String> {
    let mut config = GatewayConfig::new(upstream, key);
    config.ca_file = settings.ca_file.clone();
    config.proxy_env = PROXY_VARIABLES
        .iter()
        .filter_map(|k| std::env::var(k).ok().map(|v| ((*k).to_owned(), v)))
        .collect();
    config.limits = CallLimits {
        max_calls: settings.limits.max_model_calls,
        max_input_tokens: settings.limits.max_input_tokens,
        max_output_tokens: settings.limits.max_output_tokens,
        max_model_time: settings.limits.max_model_time,
    };
    if let Some(t) = settings.response_timeout {
        config.response_timeout = t;
    }
    if settings.record_model_calls {
        match ctx.scratch.path() {
            Ok(dir) => {
                if ctx.store.is_none() {
                    em.log(
                        LogLevel::Warn,
                        "--record-model-calls without a store: the recording is kept in a temporary folder, removed when the run ends".to_owned(),
                    );
                }
                config.record_dir = Some(dir);
                let redactor = em.redactor().clone();
                config.redact = Some(Arc::new(move |text: &str| {
                    redactor.redact_str(text).into_owned()
                }));
            }
            Err(e) => return Err(format!("no folder for the model calls' recording: {e}")),
        }
    }
    Ok(config)
}

impl AttemptGateway {
    /// Keep the real key out of the CLI's process: an inherited variable
    /// that holds it is removed, a variable set to it is dropped; an
    /// argument that holds it is an error (the attempt does not start).
    pub(super) fn seal(&self, inv: &mut agentgate_supervise::Invocation) -> Result<(), String> {
        let Some(key) = self.real_key.as_deref() else {
            return Ok(());
        };
        let holds = |v: &std::ffi::OsStr| v.to_string_lossy().contains(key);
        if inv.args.iter().any(|a| holds(a)) {
            return Err(
                "the real API key is in the CLI's arguments (an extra argument?): the gateway keeps it out of the CLI, so the attempt did not start"
                    .to_owned(),
            );
        }
        inv.env.retain(|(_, v)| !holds(v));
        if !inv.env_clear {
            let inherited: Vec<std::ffi::OsString> = std::env::vars_os()
                .filter(|(k, v)| holds(v) && !inv.env.iter().any(|(n, _)| n == k))
                .map(|(k, _)| k)
                .collect();
            inv.env_remove.extend(inherited);
        }
        Ok(())
    }

    /// The gateway's port on 127.0.0.1.
    pub(super) fn port(&self) -> Option<u16> {
        self.gateway.as_ref().map(Gateway::port)
    }

    /// The next notice of the gateway; pending forever once it is closed.
    pub(super) async fn next(&mut self) -> Option<GatewayNotice> {
        if !self.open {
            return std::future::pending().await;
        }
        let n = self.notices.recv().await;
        self.open = n.is_some();
        n
    }

    /// Act on one notice; true when the CLI is to be stopped (a limit was
    /// crossed).
    pub(super) fn on_notice(
        &mut self,
        notice: GatewayNotice,
        ctx: RunContext<'_>,
        em: &mut Emitter<'_>,
    ) -> bool {
        match notice {
            GatewayNotice::Call(call) => {
                if let Some(store) = ctx.store {
                    crate::quota::record_wire_quota(
                        store,
                        &self.quota_key,
                        &em.run_id,
                        &call,
                        self.hold_above,
                        ctx.plan.now(),
                    );
                }
                em.emit(EventBody::ModelCall(call));
                false
            }
            GatewayNotice::LimitCrossed { limit, detail } => {
                let first = self.crossed.is_none();
                if first {
                    self.crossed = Some(ErrorInfo::new(
                        ErrorKind::Budget,
                        ErrorSource::Internal,
                        format!("the run reached its limit {limit}: {detail}"),
                    ));
                }
                first
            }
        }
    }

    /// The CLI ended: the notices still queued, the gateway stopped, the
    /// report on the attempt's envelope, the wire's usage in it, and
    /// `budget` as the attempt's error when a limit was crossed.
    pub(super) async fn finish(
        mut self,
        ctx: RunContext<'_>,
        outcome: &mut AttemptOutcome,
        em: &mut Emitter<'_>,
    ) {
        self.drain(ctx, em);
        let Some(gateway) = self.gateway.take() else {
            return;
        };
        let summary = gateway.shutdown().await;
        self.drain(ctx, em);
        self.report(summary, outcome);
    }

    /// A warm process's turn: the redactor of the turn's run given the
    /// gateway's secrets, and the limit crossed by an earlier turn
    /// forgotten (each turn's limits count afresh).
    pub(super) fn begin_turn(&mut self, em: &mut Emitter<'_>) {
        redact(em, self.secrets.iter().map(String::as_str));
        self.crossed = None;
    }

    /// A warm process's turn ended: as [`AttemptGateway::finish`], the
    /// gateway kept serving the process and its totals started again for
    /// the next turn. A call made between turns counts in the next one.
    pub(super) fn finish_turn(
        &mut self,
        ctx: RunContext<'_>,
        outcome: &mut AttemptOutcome,
        em: &mut Emitter<'_>,
    ) {
        self.drain(ctx, em);
        let Some(summary) = self.gateway.as_ref().map(Gateway::take_totals) else {
            return;
        };
        self.report(summary, outcome);
    }

    /// Stop the gateway (its warm process has ended).
    pub(super) async fn shutdown(mut self) {
        if let Some(g) = self.gateway.take() {
            g.shutdown().await;
        }
    }

    /// The notices queued now.
    fn drain(&mut self, ctx: RunContext<'_>, em: &mut Emitter<'_>) {
        while let Ok(n) = self.notices.try_recv() {
            self.on_notice(n, ctx, em);
        }
    }

    /// The report on the envelope, the wire's usage in it, and `budget`
    /// as its error when a limit was crossed.
    fn report(&mut self, summary: agentgate_gateway::GatewaySummary, outcome: &mut AttemptOutcome) {
        let env = &mut outcome.envelope;
        // The CLI's figures, unless it reported none (or only estimates).
        let cli_usage = super::cost::envelope_usage(env).ok();
        // The gateway's sum: counts added, the context the last call's.
        let wire = summary.usage.clone();
        // `model_calls` counts the calls forwarded upstream.
        let reported = summary.model_calls > 0 && wire != Usage::default();
        let differences = match (&cli_usage, reported) {
            (Some(cli), true) => differences(&wire, cli),
            _ => Vec::new(),
        };
        if reported {
            use_wire_usage(env, &wire);
        }
        env.gateway = Some(Box::new(GatewayReport {
            model_calls: summary.model_calls,
            refused_calls: summary.refused_calls,
            key_mode: self.key_mode.to_owned(),
            upstreams: vec![summary.upstream.clone()],
            wire_usage: wire,
            cli_usage,
            differences,
        }));
        if let Some(e) = self.crossed.take() {
            outcome.fail(e);
        }
    }
}

/// Each token class where the wire and the CLI disagree.
fn differences(wire: &Usage, cli: &Usage) -> Vec<String> {
    [
        ("input_tokens", wire.input_tokens, cli.input_tokens),
        ("output_tokens", wire.output_tokens, cli.output_tokens),
        (
            "cache_read_input_tokens",
            wire.cache_read_input_tokens,
            cli.cache_read_input_tokens,
        ),
        (
            "cache_creation_input_tokens",
            wire.cache_creation_input_tokens,
            cli.cache_creation_input_tokens,
        ),
        (
            "cache_creation_1h_input_tokens",
            wire.cache_creation_1h_input_tokens,
            cli.cache_creation_1h_input_tokens,
        ),
        (
            "reasoning_tokens",
            wire.reasoning_tokens,
            cli.reasoning_tokens,
        ),
    ]
    .into_iter()
    .filter(|(_, w, c)| w != c)
    .map(|(name, w, c)| format!("{name}: wire {w}, cli {c}"))
    .collect()
}

/// The envelope's usage from the wire; the CLI's cost stays (the wire
/// carries none).
fn use_wire_usage(env: &mut Envelope, wire: &Usage) {
    let cost = env.tokens_used.cost_usd;
    env.tokens_used = TokensUsed::from_usage(wire, &env.response);
    env.tokens_used.cost_usd = cost;
    env.reasoning_tokens = wire.reasoning_tokens;
    env.context_tokens = wire.context_tokens.or(env.context_tokens);
    env.metadata.token_usage_available = true;
    env.metadata.usage_source = Some(UsageSource::Wire);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: u64, output: u64, read: u64, write: u64, reasoning: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            cache_read_input_tokens: read,
            cache_creation_input_tokens: write,
            reasoning_tokens: reasoning,
            total_tokens: input + output,
            ..Usage::default()
        }
    }

    #[test]
    fn every_class_that_differs_is_named_with_both_figures() {
        let wire = usage(100, 20, 30, 5, 7);
        assert!(differences(&wire, &wire.clone()).is_empty());
        let cli = usage(100, 18, 30, 0, 7);
        assert_eq!(
            differences(&wire, &cli),
            [
                "output_tokens: wire 20, cli 18",
                "cache_creation_input_tokens: wire 5, cli 0"
            ]
        );
        // The 1-hour part of the writes is a class of its own.
        let mut hour = wire.clone();
        hour.cache_creation_1h_input_tokens = 5;
        assert_eq!(
            differences(&hour, &wire),
            ["cache_creation_1h_input_tokens: wire 5, cli 0"]
        );
    }

    #[test]
    fn the_wire_usage_replaces_the_clis_and_keeps_its_cost() {
        let mut env = Envelope {
            response: "done".to_owned(),
            ..Envelope::default()
        };
        env.tokens_used.cost_usd = Some(0.25);
        env.tokens_used.input_tokens = 1;
        let mut wire = usage(100, 20, 30, 5, 7);
        wire.cache_creation_1h_input_tokens = 4;
        wire.context_tokens = Some(120);
        use_wire_usage(&mut env, &wire);
        assert_eq!(env.tokens_used.input_tokens, 100);
        assert_eq!(env.tokens_used.output_tokens, 20);
        assert_eq!(env.tokens_used.cache_read_input_tokens, 30);
        assert_eq!(env.tokens_used.cache_creation_input_tokens, 5);
        assert_eq!(env.tokens_used.cache_creation_1h_input_tokens, 4);
        assert_eq!(env.tokens_used.cost_usd, Some(0.25));
        assert_eq!(env.reasoning_tokens, 7);
        assert_eq!(env.context_tokens, Some(120));
        assert_eq!(env.metadata.usage_source, Some(UsageSource::Wire));
    }
}
