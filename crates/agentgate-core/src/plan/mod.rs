//! Planning a run: from what a caller asks ([`RunFlags`]: the flags of
//! `agentgate run`, a server request, a library caller's) and a [`Config`]
//! to a [`Plan`], the steps a run executes in order.
//!
//! [`plan`] picks the members (`members.rs`: the providers, agents or
//! chain asked for, else the config's chain `default`), then builds each
//! step (`build.rs`): its provider, its settings combined from the flags,
//! the agent, the chain and the provider's defaults
//! ([`crate::settings::Settings::combine`]), its model and how it was
//! chosen, its prompt, its permission mode and checks. `--dry-run` prints
//! a plan ([`report`]); the run module's `run` executes one.

mod automation_sandbox;
mod build;
mod effort;
mod error;
mod members;
mod modes;
pub mod report;
mod sandbox;
mod skill;
mod step;

use std::path::PathBuf;

use jiff::Timestamp;

pub(crate) use crate::run_flags::{RunFlags, SessionBusy, now_from_env};
pub use automation_sandbox::automation_sandbox_faults;
pub use error::PlanError;
pub use sandbox::check_sandbox_policy;
pub use step::{EditScope, PromptShape, Step, StepGateway, StepSandbox};

use crate::config::{Config, Handoff, OnDirty};
use crate::prompt::TaskInput;
use crate::redact::{Redactor, RedactorBuilder, secret_flag_values};

/// What a run executes: its steps, in order, and the chain's policies.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The agents to try, in order (one for a plain run).
    pub steps: Vec<Step>,
    /// The failover chain's name, for the record.
    pub chain: Option<String>,
    /// A logical session name: the first run creates the provider session,
    /// later runs resume it (one mapping per provider).
    pub session: Option<String>,
    /// What to do when another run holds the session.
    pub session_busy: SessionBusy,
    /// What to do when a failed attempt changed the workspace.
    pub on_dirty: OnDirty,
    /// What the next agent learns of a failed attempt.
    pub handoff: Handoff,
    /// Run a provider even when its quota is recorded as exhausted.
    pub ignore_quota: bool,
    /// The clock: `None` = the system's. Tests set it to check quota
    /// skipping around a reset time.
    pub now: Option<Timestamp>,
    /// The home folder the CLIs use (for session files read after the run):
    /// agentgate's own; a step whose `env` sets `HOME` (the flags', the
    /// agent's or the provider's) uses that instead.
    pub home: Option<PathBuf>,
    /// Things the caller should know (a prompt cut or large).
    pub warnings: Vec<String>,
    /// Values never to print or store (the config's `redact:`), besides
    /// the secrets of the run's environment (see [`Plan::redactor`]).
    pub redact: Vec<String>,
    /// How a CLI's permission requests are answered (permission mode
    /// `ask`): the config's `approvals:`.
    pub approvals: crate::approvals::ApprovalPolicy,
    /// How long a warm process of this run's session may stay idle
    /// before it is ended (`--warm-idle`); `None`: the holder's default.
    pub warm_idle: Option<std::time::Duration>,
    /// The run's labels (`--label`): recorded with the run and the session
    /// it creates, and put in the envelope.
    pub labels: agentgate_protocol::Labels,
    /// Labels recorded with the run in the store beside `labels`, never
    /// put in its envelope: the API token that submitted its job
    /// (`agentgate.token`, `agentgate.team`), on every run of the job, so
    /// that budgets and usage reports find them.
    pub record_labels: agentgate_protocol::Labels,
    /// Where the run's log file goes (`--log-dir`, `log_dir:`); `None`: no
    /// log file.
    pub run_log: Option<crate::log_name::RunLogSpec>,
    /// The skill every step invokes (`--skill`), for the envelope.
    pub skill: Option<String>,
    /// Save each attempt's prompt, redacted, as `prompt.txt` in the run
    /// folder (`--debug-prompt`, `debug_prompt:`).
    pub debug_prompt: bool,
    /// `gateway.quota_hold_above`: a provider whose wire reported a window
    /// used above this share is held (recorded exhausted) until the window
    /// resets.
    pub quota_hold_above: Option<f64>,
    /// The folder quota errors are written to as files (`quota_inbox:`).
    pub quota_inbox: Option<std::path::PathBuf>,
    /// How each attempt's tokens are priced (`pricing:` over the built-in
    /// rate card).
    pub pricing: crate::cost::Pricing,
    /// What the run may spend (`budgets:` and `--max-cost`/`--max-tokens`).
    pub budget: crate::budget::RunBudget,
}

impl Plan {
    /// The run is one of a job the API token `submitter` submitted: its
    /// record carries the token's labels, and the token's and its team's
    /// budgets apply.
    pub fn submitted_by(&mut self, submitter: crate::budget::BudgetSubmitter) {
        let labels = agentgate_store::Submitter {
            token: submitter.token.clone(),
            team: submitter.team.clone(),
        }
        .labels();
        self.record_labels.extend(labels);
        self.budget.submitter = Some(submitter);
    }

    /// A plan of one step, with the default policies.
    pub fn single(step: Step) -> Plan {
        Plan {
            steps: vec![step],
            chain: None,
            session: None,
            session_busy: SessionBusy::default(),
            on_dirty: OnDirty::default(),
            handoff: Handoff::default(),
            ignore_quota: false,
            now: None,
            home: std::env::var_os("HOME").map(PathBuf::from),
            warnings: Vec::new(),
            redact: Vec::new(),
            approvals: crate::approvals::ApprovalPolicy::default(),
            warm_idle: None,
            labels: agentgate_protocol::Labels::new(),
            record_labels: agentgate_protocol::Labels::new(),
            run_log: None,
            skill: None,
            debug_prompt: false,
            quota_hold_above: None,
            quota_inbox: None,
            pricing: crate::cost::Pricing::default(),
            budget: crate::budget::RunBudget::default(),
        }
    }

    /// The run's clock.
    pub fn now(&self) -> Timestamp {
        self.now.unwrap_or_else(Timestamp::now)
    }

    /// The run's [`Redactor`]: the secret-named variables of agentgate's
    /// own environment (the CLIs inherit it) and of every step's `env`
    /// (the flags', the agent's, the provider's), the values of secret
    /// flags among every step's extra arguments, and [`Plan::redact`].
    pub fn redactor(&self) -> Redactor {
        let mut b = RedactorBuilder::new();
        let mut inherited: Vec<(String, String)> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        inherited.sort();
        for step in &self.steps {
            for (k, v) in &step.request.env {
                b.env(k, v);
            }
            for (k, v) in step.request.mcp_servers.iter().flat_map(|s| &s.env) {
                b.env(k, v);
            }
            for (flag, v) in secret_flag_values(&step.request.extra_args) {
                b.flag(&flag, &v);
            }
        }
        for (k, v) in &inherited {
            b.env(k, v);
        }
        for v in &self.redact {
            b.value(v);
        }
        b.build()
    }
}

/// A step whose environment, or an MCP server's, names one of
/// agentgate's own variables is refused (see [`agentgate_supervise::own_env`]): a user
/// who set one meant something that cannot happen, so it is said rather
/// than dropped in silence.
fn refuse_own_variables(step: &Step) -> Result<(), PlanError> {
    let own = |field, place: String, names: Vec<&str>| {
        match agentgate_supervise::own_env::first_own_name(names) {
            Some(name) => Err(PlanError::OwnVariable {
                field,
                place,
                name: name.to_owned(),
            }),
            None => Ok(()),
        }
    };
    own(
        "env",
        "the run's environment".to_owned(),
        step.request.env.iter().map(|(k, _)| k.as_str()).collect(),
    )?;
    for server in &step.request.mcp_servers {
        own(
            "request",
            format!("MCP server `{}`", server.name),
            server.env.iter().map(|(k, _)| k.as_str()).collect(),
        )?;
    }
    Ok(())
}

/// Plan the run `flags` ask for, with `cfg`, for `task`. Reads the files
/// the prompt is made of; runs nothing.
pub fn plan(cfg: &Config, flags: &RunFlags, task: TaskInput) -> Result<Plan, PlanError> {
    let (chain, members) = members::members(flags, cfg)?;
    if members.len() > 1 {
        if flags.settings.binary.is_some() {
            return Err(PlanError::OneProviderOnly {
                field: "binary",
                message: "--binary applies to one provider; give each provider's in the config (`binary:`) or $AGENTGATE_<PROVIDER>_BIN",
            });
        }
        if flags.resume.is_some() {
            return Err(PlanError::OneProviderOnly {
                field: "resume",
                message: "--resume takes one provider's session id; use --session NAME with a chain",
            });
        }
    }
    let mut shared = build::Shared::new(flags, task)?;
    let mut steps = Vec::new();
    let mut warnings = Vec::new();
    let mut skill_misses = Vec::new();
    for m in &members {
        let (step, prompt_warnings) = match build::build_step(&mut shared, cfg, chain, m) {
            // In a chain, a step whose CLI cannot use the skill is left
            // out, saying why; the run fails only when every step is.
            Err(e @ (PlanError::SkillNotFound { .. } | PlanError::SkillUnusable { .. }))
                if members.len() > 1 =>
            {
                skill_misses.push(e.to_string());
                continue;
            }
            other => other?,
        };
        refuse_own_variables(&step)?;
        warnings.extend(prompt_warnings);
        steps.push(step);
    }
    if let Some(call) = &flags.skill {
        if steps.is_empty() {
            return Err(PlanError::SkillNowhere {
                name: call.name.clone(),
                reasons: skill_misses.join("; "),
            });
        }
        warnings.extend(skill_misses.into_iter().map(|m| format!("skipped: {m}")));
    }
    if !steps.iter().any(|s| s.gateway.is_some()) {
        let asked = if flags.record_model_calls {
            Some("--record-model-calls")
        } else if flags.gateway_limits.any() {
            Some(
                "a limit on model use (--max-model-calls, --max-input-tokens, --max-output-tokens, --max-model-time)",
            )
        } else {
            None
        };
        if let Some(flag) = asked {
            return Err(PlanError::NeedsGateway { flag });
        }
    }
    // The log file's folder: the flag, else the first agent's, else the
    // file's; its name: the flag's template, else the file's, else the default.
    let first_agent = steps
        .first()
        .and_then(|s| s.agent.as_deref())
        .and_then(|name| cfg.agent(name));
    let run_log = flags
        .log_dir
        .clone()
        .or_else(|| first_agent.and_then(|a| a.log_dir.clone()))
        .or_else(|| cfg.log_dir.clone())
        .map(|dir| crate::log_name::RunLogSpec {
            dir,
            name: flags
                .log_name
                .clone()
                .or_else(|| cfg.log_name.clone())
                .unwrap_or_else(|| crate::log_name::DEFAULT_LOG_NAME.to_owned()),
        });
    // A `HOME` in the flags' environment reaches every step's `env`, where
    // the run looks first; this is the home of a step that sets none.
    let home = std::env::var_os("HOME").map(PathBuf::from);
    Ok(Plan {
        steps,
        chain: chain.map(|c| c.name.clone()),
        session: flags.session.clone(),
        session_busy: flags.session_busy,
        on_dirty: flags
            .on_dirty
            .or(chain.map(|c| c.on_dirty))
            .unwrap_or_default(),
        handoff: flags
            .handoff
            .or(chain.map(|c| c.handoff))
            .unwrap_or_default(),
        ignore_quota: flags.ignore_quota,
        now: flags.now,
        home,
        warnings,
        redact: cfg.redact.clone(),
        approvals: cfg.approvals.clone(),
        warm_idle: None,
        labels: flags.labels.clone(),
        record_labels: agentgate_protocol::Labels::new(),
        run_log,
        skill: flags.skill.as_ref().map(|s| s.name.clone()),
        debug_prompt: flags.debug_prompt || cfg.debug_prompt,
        quota_hold_above: cfg.gateway.quota_hold_above,
        quota_inbox: cfg.quota_inbox.clone(),
        pricing: cfg.pricing.clone(),
        budget: crate::budget::RunBudget {
            budgets: cfg.budgets.clone(),
            run: flags.budget.over(cfg.budgets.run),
            run_source: match flags.budget.any() {
                true => "the run's limit",
                false => "the run's limit (budgets.run)",
            },
            submitter: None,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ConfigSource;
    use crate::request::RunRequest;

    fn planned(request: &str, config: &str) -> Result<Plan, PlanError> {
        let cfg = Config::parse(config, ConfigSource::Default).unwrap();
        let (flags, task) = RunRequest::from_json(request).unwrap().to_flags().unwrap();
        plan(&cfg, &flags, task)
    }

    #[test]
    fn a_run_that_names_an_agentgate_variable_is_refused_naming_it() {
        let dir = std::env::temp_dir().display().to_string();
        let request = |env: &str| {
            format!(r#"{{"prompt": "p", "providers": ["claude"], "cwd": "{dir}", "env": {env}}}"#)
        };
        let e = planned(
            &request(r#"{"A": "1", "AGENTGATE_HOME": "/x"}"#),
            "version: 1\n",
        )
        .unwrap_err();
        assert!(
            matches!(&e, PlanError::OwnVariable { name, .. } if name == "AGENTGATE_HOME"),
            "{e:?}"
        );
        assert!(e.to_string().contains("never reach"), "{e}");
        // From the config's `env:` too.
        let e = planned(
            &request("{}"),
            "version: 1\nproviders:\n  claude:\n    env: {AGENTGATE_TOKEN: t}\n",
        )
        .unwrap_err();
        assert!(
            matches!(&e, PlanError::OwnVariable { name, .. } if name == "AGENTGATE_TOKEN"),
            "{e:?}"
        );
        assert!(planned(&request(r#"{"MY_AGENTGATE_X": "1"}"#), "version: 1\n").is_ok());
    }

    #[test]
    fn gemini_gets_the_capacity_fallback_unless_flash_or_off() {
        let dir = tempfile::tempdir().unwrap();
        let request = |provider: &str, model: &str| {
            format!(
                r#"{{"prompt": "p", "providers": ["{provider}"], "model": "{model}", "cwd": "{}"}}"#,
                dir.path().display()
            )
        };
        let fallback = |provider: &str, model: &str, config: &str| {
            planned(&request(provider, model), config).unwrap().steps[0]
                .capacity_fallback
                .clone()
        };
        let v1 = "version: 1\n";
        assert_eq!(
            fallback("gemini", "gemini-2.5-pro", v1).as_deref(),
            Some("gemini-2.5-flash")
        );
        assert_eq!(fallback("gemini", "gemini-3.8-flash", v1), None);
        assert_eq!(fallback("claude", "opus", v1), None);
        assert_eq!(
            fallback(
                "gemini",
                "pro",
                "version: 1\nmodels: {gemini_capacity_fallback: gemini-3-flash}\n"
            )
            .as_deref(),
            Some("gemini-3-flash")
        );
        assert_eq!(
            fallback(
                "gemini",
                "pro",
                "version: 1\nmodels: {gemini_capacity_fallback: off}\n"
            ),
            None
        );
    }

    #[test]
    fn the_gateway_comes_from_the_flags_the_agent_or_the_config() {
        let dir = tempfile::tempdir().unwrap();
        let config = "version: 1\ngateway:\n  limits: {max_model_calls: 9, max_output_tokens: 50}\n  providers:\n    codex: {enabled: true, key_env: TEAM_KEY}\nagents:\n  quiet: {provider: codex, gateway: false}\n";
        let cfg = Config::parse(config, ConfigSource::Default).unwrap();
        let step_gateway = |member: &str, flag: Option<bool>| {
            let body = format!(
                r#"{{"prompt": "p", {member}, "cwd": "{}"}}"#,
                dir.path().display()
            );
            let (mut flags, task) = RunRequest::from_json(&body).unwrap().to_flags().unwrap();
            flags.gateway = flag;
            if flag == Some(true) || (flag.is_none() && member.contains("codex")) {
                flags.gateway_limits.max_model_calls = Some(2);
            }
            plan(&cfg, &flags, task).unwrap().steps[0].gateway.clone()
        };
        let codex = step_gateway(r#""providers": ["codex"]"#, None).expect("on for codex");
        assert_eq!(codex.key_env.as_deref(), Some("TEAM_KEY"));
        assert_eq!(
            codex.limits.max_model_calls,
            Some(2),
            "the flag's limit wins"
        );
        assert_eq!(
            codex.limits.max_output_tokens,
            Some(50),
            "the config's stays"
        );
        assert_eq!(step_gateway(r#""providers": ["claude"]"#, None), None);
        assert!(step_gateway(r#""providers": ["claude"]"#, Some(true)).is_some());
        assert_eq!(
            step_gateway(r#""agents": ["quiet"]"#, None),
            None,
            "the agent's off"
        );
        assert!(step_gateway(r#""agents": ["quiet"]"#, Some(true)).is_some());
        assert_eq!(step_gateway(r#""providers": ["codex"]"#, Some(false)), None);
        let body = format!(
            r#"{{"prompt": "p", "providers": ["claude"], "cwd": "{}"}}"#,
            dir.path().display()
        );
        let (mut flags, task) = RunRequest::from_json(&body).unwrap().to_flags().unwrap();
        flags.record_model_calls = true;
        let e = plan(&cfg, &flags, task).unwrap_err();
        assert!(matches!(e, PlanError::NeedsGateway { .. }), "{e}");
        assert!(
            e.to_string()
                .contains("--record-model-calls needs a model gateway"),
            "{e}"
        );
    }

    #[test]
    fn an_agents_permissions_file_is_read_when_a_run_is_planned() {
        use agentgate_providers::permissions::{NeutralPermissions, Permissions};
        let dir = tempfile::tempdir().unwrap();
        let config =
            "version: 1\nagents:\n  g:\n    provider: claude\n    permissions_file: perms.yml\n";
        let cfg = Config::parse(
            config,
            ConfigSource::Flag(dir.path().join("agentgate.yaml")),
        )
        .unwrap();
        let request = format!(
            r#"{{"prompt": "p", "agents": ["g"], "cwd": "{}"}}"#,
            dir.path().display()
        );
        let run = || {
            let (flags, task) = RunRequest::from_json(&request).unwrap().to_flags().unwrap();
            plan(&cfg, &flags, task)
        };
        std::fs::write(
            dir.path().join("perms.yml"),
            "deny: [shell]\nnetwork: false\n",
        )
        .unwrap();
        assert_eq!(
            run().unwrap().steps[0].request.permissions,
            Some(Permissions::Neutral(NeutralPermissions {
                deny: vec!["shell".into()],
                network: Some(false),
                ..NeutralPermissions::default()
            }))
        );
        // Read for each run: a broken file fails the plan, naming the agent.
        std::fs::write(dir.path().join("perms.yml"), "deny: shell\n").unwrap();
        let e = run().unwrap_err();
        assert_eq!(e.field(), "agents");
        assert!(
            e.to_string().contains("perms.yml") && e.to_string().contains("`g`"),
            "{e}"
        );
    }

    #[test]
    fn the_knobs_reach_each_steps_request_and_the_envelope_report() {
        let dir = std::env::temp_dir().display().to_string();
        let config = "version: 1\nproviders:\n  claude:\n    env_remove: [CLAUDE_CONFIG_DIR]\n    \
                      extra_args: [--global]\n";
        let request = format!(
            r#"{{"prompt": "p", "providers": ["claude", "cursor"], "cwd": "{dir}",
                "reasoning_effort": "high", "max_turns": 3, "timeout": "90s",
                "extend_on_activity": "1m", "extra_args": ["--task"], "extra_args_mode": "replace"}}"#
        );
        let p = planned(&request, config).unwrap();
        let claude = &p.steps[0];
        assert_eq!(claude.request.env_remove, ["CLAUDE_CONFIG_DIR"]);
        assert_eq!(claude.request.reasoning_effort.as_deref(), Some("high"));
        assert_eq!(claude.request.max_turns, Some(3));
        assert_eq!(claude.request.extra_args, ["--task"]);
        // Extended up to three timeouts: the deadline a CLI's own limit
        // must outlast.
        assert_eq!(
            claude.request.deadline,
            Some(std::time::Duration::from_secs(270))
        );
        assert_eq!(
            claude.effort.as_ref().and_then(|e| e.applied.as_deref()),
            Some("high")
        );
        // cursor-agent has neither knob: left out, the step says so.
        let cursor = &p.steps[1];
        assert_eq!(
            (&cursor.request.reasoning_effort, cursor.request.max_turns),
            (&None, None)
        );
        assert_eq!(cursor.notices.len(), 2, "{:?}", cursor.notices);
        assert!(
            p.warnings
                .iter()
                .any(|w| w.contains("cursor has no limit on turns"))
        );
    }
}
