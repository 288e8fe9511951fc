//! From the flags and the config to the run's steps: which agents, with
//! which model, prompt, permissions, limits and checks.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agentgate_core::config::{AgentMode, AgentSpec, ChainSpec, Config, RetryOn};
use agentgate_core::output_schema::OutputSchema;
use agentgate_core::prompt::{self, AssembledPrompt, PromptParts, TaskInput};
use agentgate_core::provider::{PermissionMode, RunRequest};
use agentgate_core::run::{AnswerCheck, EditScope, ErrorFilter, RunOptions, Step};
use anyhow::Context;

use crate::run_cmd::{Args, base_cwd};

/// The variable that sets the clock of a run (RFC 3339), for tests of the
/// quota skipping around a reset time.
pub const NOW_ENV: &str = "AGENTGATE_NOW";

/// A planned run.
pub struct Planned {
    /// What to run.
    pub opts: RunOptions,
    /// Per step, what `--dry-run` shows beyond the invocation.
    pub steps: Vec<StepInfo>,
    /// Things the user should know.
    pub warnings: Vec<String>,
}

/// What the planning found for one step.
pub struct StepInfo {
    /// How the model was chosen: flag, agent, alias, provider_default or
    /// cli_default.
    pub model_source: &'static str,
    /// The prompt, with its pieces.
    pub prompt: AssembledPrompt,
}

/// One member of the run: a provider, perhaps through a named agent.
struct Member<'a> {
    provider: String,
    agent: Option<&'a AgentSpec>,
}

/// The agents to try, and the chain they come from.
fn members<'a>(
    args: &Args,
    cfg: &'a Config,
) -> anyhow::Result<(Option<&'a ChainSpec>, Vec<Member<'a>>)> {
    let list = |s: &str| -> anyhow::Result<Vec<String>> {
        let names: Vec<String> = s
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect();
        if names.is_empty() {
            anyhow::bail!("`{s}` names no provider or agent");
        }
        Ok(names)
    };
    let agent = |name: &str| -> anyhow::Result<Member<'a>> {
        let a = cfg.agent(name).with_context(|| {
            format!(
                "unknown agent `{name}` ({})",
                known(cfg.agents.iter().map(|a| a.name.as_str()), cfg, "agents")
            )
        })?;
        Ok(Member {
            provider: a.provider.clone(),
            agent: Some(a),
        })
    };
    if let Some(p) = &args.provider {
        let members = list(p)?
            .into_iter()
            .map(|provider| Member {
                provider,
                agent: None,
            })
            .collect();
        return Ok((None, members));
    }
    if let Some(a) = &args.agent {
        let members = list(a)?
            .iter()
            .map(|n| agent(n))
            .collect::<anyhow::Result<_>>()?;
        return Ok((None, members));
    }
    let chain = match &args.chain {
        Some(name) => cfg.chain(name).with_context(|| {
            format!(
                "unknown chain `{name}` ({})",
                known(cfg.chains.iter().map(|c| c.name.as_str()), cfg, "chains")
            )
        })?,
        None => cfg.chain("default").with_context(|| {
            format!(
                "no provider: give --provider, --agent or --chain ({})",
                match cfg.source.path() {
                    Some(p) => format!(
                        "the config file {} has no chain named `default`",
                        p.display()
                    ),
                    None => "no config file was found".to_owned(),
                }
            )
        })?,
    };
    let members = chain
        .agents
        .iter()
        .map(|n| agent(n))
        .collect::<anyhow::Result<_>>()?;
    Ok((Some(chain), members))
}

fn known<'n>(names: impl Iterator<Item = &'n str>, cfg: &Config, what: &str) -> String {
    let names: Vec<&str> = names.collect();
    match (cfg.source.path(), names.is_empty()) {
        (None, _) => "no config file was found; see docs/config.md".to_owned(),
        (Some(p), true) => format!("the config file {} defines no {what}", p.display()),
        (Some(p), false) => format!(
            "the config file {} defines {}",
            p.display(),
            names.join(", ")
        ),
    }
}

/// A path given on the command line, made absolute against the current
/// directory (the agent may run elsewhere).
fn absolute(p: &Path) -> anyhow::Result<PathBuf> {
    if p.is_absolute() {
        return Ok(p.to_path_buf());
    }
    Ok(std::env::current_dir()
        .context("failed to read the current directory")?
        .join(p))
}

fn absolute_opt(p: Option<&PathBuf>) -> anyhow::Result<Option<PathBuf>> {
    p.map(|p| absolute(p)).transpose()
}

/// The run's clock: `AGENTGATE_NOW` when set, else the system's.
fn clock() -> anyhow::Result<Option<jiff::Timestamp>> {
    match std::env::var(NOW_ENV) {
        Ok(v) if !v.trim().is_empty() => v
            .trim()
            .parse::<jiff::Timestamp>()
            .map(Some)
            .with_context(|| format!("{NOW_ENV}={v} is not an RFC 3339 time")),
        _ => Ok(None),
    }
}

/// Plan the run the flags and the config describe.
pub fn plan(args: &Args, cfg: &Config, task: TaskInput) -> anyhow::Result<Planned> {
    let (chain, members) = members(args, cfg)?;
    if members.len() > 1 {
        if args.binary.is_some() {
            anyhow::bail!(
                "--binary applies to one provider; give each provider's in the config (`binary:`) or $AGENTGATE_<PROVIDER>_BIN"
            );
        }
        if args.resume.is_some() {
            anyhow::bail!(
                "--resume takes one provider's session id; use --session NAME with a chain"
            );
        }
    }
    let base = base_cwd(args)?;
    let mut files = Files {
        system_file: match &args.system_file {
            Some(f) => Some(
                std::fs::read_to_string(f)
                    .with_context(|| format!("failed to read --system-file {}", f.display()))?,
            ),
            None => None,
        },
        schemas: HashMap::new(),
    };
    let mut warnings = Vec::new();
    let mut steps = Vec::new();
    let mut infos = Vec::new();
    for m in &members {
        let (step, info) = build_step(args, cfg, chain, m, &task, &base, &mut files)?;
        warnings.extend(info.prompt.warnings.iter().cloned());
        steps.push(step);
        infos.push(info);
    }
    let home = args
        .env
        .iter()
        .find(|(k, _)| k == "HOME")
        .map(|(_, v)| PathBuf::from(v))
        .or_else(|| std::env::var_os("HOME").map(PathBuf::from));
    let opts = RunOptions {
        steps,
        chain: chain.map(|c| c.name.clone()),
        session: args.session.clone(),
        on_dirty: args
            .on_dirty
            .or(chain.map(|c| c.on_dirty))
            .unwrap_or_default(),
        handoff: args
            .handoff
            .or(chain.map(|c| c.handoff))
            .unwrap_or_default(),
        ignore_quota: args.ignore_quota,
        keeper: std::env::current_exe().ok(),
        home,
        now: clock()?,
        ..RunOptions::default()
    };
    Ok(Planned {
        opts,
        steps: infos,
        warnings,
    })
}

/// What the steps share from files, read once per run: --system-file's
/// text, and each output schema by path.
struct Files {
    system_file: Option<String>,
    schemas: HashMap<PathBuf, AnswerCheck>,
}

impl Files {
    fn schema(&mut self, path: &Path) -> anyhow::Result<AnswerCheck> {
        if let Some(check) = self.schemas.get(path) {
            return Ok(check.clone());
        }
        let schema = OutputSchema::load(path)?;
        let check: AnswerCheck = Arc::new(move |answer: &str| schema.check(answer));
        self.schemas.insert(path.to_path_buf(), check.clone());
        Ok(check)
    }
}

fn build_step(
    args: &Args,
    cfg: &Config,
    chain: Option<&ChainSpec>,
    m: &Member<'_>,
    task: &TaskInput,
    base: &Path,
    files: &mut Files,
) -> anyhow::Result<(Step, StepInfo)> {
    let adapter = crate::providers::resolve_in(&m.provider, cfg)?;
    let name = adapter.name().to_owned();
    let defaults = cfg.provider_defaults(&name);
    let agent = m.agent;
    let fast = args.tier.as_deref() == Some("fast");
    let choice = cfg.resolve_model(
        &name,
        args.model.as_deref(),
        agent.and_then(|a| a.model_for_tier(fast)),
    );
    let cwd = match (&args.cwd, agent.and_then(|a| a.cwd.as_ref())) {
        (None, Some(dir)) => dir.canonicalize().with_context(|| {
            format!(
                "the working directory {} of agent `{}` does not exist",
                dir.display(),
                agent.map_or("", |a| a.name.as_str())
            )
        })?,
        _ => base.to_path_buf(),
    };
    let system = files
        .system_file
        .clone()
        .or_else(|| args.system.clone())
        .or_else(|| agent.and_then(|a| a.system.clone()));

    let mut parts = PromptParts::new(String::new(), &cwd);
    parts.agent_file = absolute_opt(args.agent_file.as_ref())?
        .or_else(|| agent.and_then(|a| a.agent_file.clone()));
    parts.persona = args
        .persona
        .clone()
        .or_else(|| agent.and_then(|a| a.persona.clone()));
    parts.context_files = args
        .context
        .iter()
        .map(|p| absolute(p))
        .collect::<anyhow::Result<_>>()?;
    parts.context_dir = absolute_opt(args.context_dir.as_ref())?;
    parts.context_max = args.context_max;
    parts.skip_context_file = args.skip_context_file;
    parts.unattended_instruction = !args.no_unattended_instruction;
    if let Some(max) = args.prompt_max_bytes {
        parts.max_bytes = max;
    }
    if let Some(warn) = args.prompt_warn_bytes {
        parts.warn_bytes = warn;
    }
    task.clone().apply_to(&mut parts);
    let prompt = prompt::assemble(&parts)?;

    let mode = agent.and_then(|a| a.mode.as_ref());
    let permission_mode = if args.yolo {
        PermissionMode::Bypass
    } else {
        args.permission_mode
            .or(agent.and_then(|a| a.permission_mode))
            .or(match mode {
                Some(AgentMode::Classify) => Some(PermissionMode::Plan),
                Some(AgentMode::Edit { .. }) => Some(PermissionMode::AcceptEdits),
                None => None,
            })
            .unwrap_or_default()
    };
    let edit_scope = match mode {
        None => EditScope::Any,
        Some(AgentMode::Classify) => EditScope::Nothing,
        Some(AgentMode::Edit { allow }) if allow.is_empty() => {
            EditScope::Only(vec![PathBuf::from(".")])
        }
        Some(AgentMode::Edit { allow }) => EditScope::Only(allow.clone()),
    };
    let mut env = defaults.map(|d| d.env.clone()).unwrap_or_default();
    env.extend(agent.map(|a| a.env.clone()).unwrap_or_default());
    env.extend(args.env.iter().cloned());
    let mut extra_args = defaults.map(|d| d.extra_args.clone()).unwrap_or_default();
    extra_args.extend(agent.map(|a| a.extra_args.clone()).unwrap_or_default());
    extra_args.extend(args.extra_args.iter().cloned());
    let schema_path = absolute_opt(args.output_schema.as_ref())?
        .or_else(|| agent.and_then(|a| a.output_schema.clone()));
    let check_answer = schema_path
        .as_deref()
        .map(|p| files.schema(p))
        .transpose()?;
    let retry_on: Option<RetryOn> = match (agent, chain) {
        _ if args.retry_on.is_some() => args.retry_on.clone(),
        (Some(a), Some(c)) => c.retry_on_for(a).cloned(),
        (Some(a), None) => a.retry_on.clone(),
        (None, _) => None,
    };
    let retry_on: Option<ErrorFilter> = retry_on.map(|r| {
        let f: ErrorFilter = Arc::new(move |e| r.admits(e));
        f
    });
    let max_provider_retries = args
        .max_provider_retries
        .or(agent.and_then(|a| a.max_provider_retries))
        .or(defaults.and_then(|d| d.max_provider_retries));
    let request = RunRequest {
        prompt: prompt.fresh.clone(),
        model: choice.model.clone(),
        permission_mode,
        system,
        add_dirs: args.add_dirs.clone(),
        cwd,
        resume: args.resume.clone(),
        max_provider_retries,
        extra_args,
        env,
        env_clear: false,
        output_schema: schema_path,
    };
    let mut step = Step::new(adapter, request);
    step.agent = agent.map(|a| a.name.clone());
    step.resumed_prompt = (prompt.resumed != prompt.fresh).then(|| prompt.resumed.clone());
    step.binary = args
        .binary
        .clone()
        .or_else(|| agent.and_then(|a| a.binary.clone()))
        .or_else(|| defaults.and_then(|d| d.binary.clone()));
    step.timeout = args
        .timeout
        .or(agent.and_then(|a| a.timeout))
        .or(defaults.and_then(|d| d.timeout));
    step.idle_timeout = args
        .idle_timeout
        .or(agent.and_then(|a| a.idle_timeout))
        .or(defaults.and_then(|d| d.idle_timeout));
    step.max_provider_retries = max_provider_retries;
    step.model_resolution = choice.resolution.clone();
    step.default_model = cfg.default_model(&name);
    step.retry_on = retry_on;
    step.check_answer = check_answer;
    step.edit_scope = edit_scope;
    Ok((
        step,
        StepInfo {
            model_source: choice.source.as_str(),
            prompt,
        },
    ))
}
