//! Building one step: the member's provider, its settings combined (the
//! flags, else the agent, else the chain, else the provider's defaults),
//! its model, its prompt and its checks.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::effort;
use super::error::PlanError;
use super::members::Member;
use super::modes;
use super::skill;
use super::step::{EditScope, PromptShape, Step};
use crate::catalog::{CatalogCheck, catalog_efforts, catalog_for, check_model};
use crate::config::{AgentMode, AgentSpec, ChainSpec, Config, ModelSource, find_wrapper_models};
use crate::output_schema::OutputSchema;
use crate::prompt::{self, PromptParts, TaskInput};
use crate::read_limit::{OUTPUT_SCHEMA_MAX_BYTES, SYSTEM_FILE_MAX_BYTES, read_text_file};
use crate::run_flags::{RunFlags, Tier};
use crate::settings::Settings;
use agentgate_providers::CliRequest;
use agentgate_providers::permissions::Permissions;

/// What the steps of one run share: the flags with their paths made
/// absolute and `--system-file` read, the base working directory, and the
/// output schemas already compiled.
pub(super) struct Shared<'a> {
    pub flags: &'a RunFlags,
    /// The flags' settings, paths absolute and `--system-file` read in.
    pub settings: Settings,
    /// `--cwd`, else the process's working directory.
    pub base_cwd: PathBuf,
    pub task: TaskInput,
    schemas: HashMap<PathBuf, Arc<OutputSchema>>,
}

impl<'a> Shared<'a> {
    pub fn new(flags: &'a RunFlags, task: TaskInput) -> Result<Shared<'a>, PlanError> {
        let mut settings = flags.settings.clone();
        if let Some(f) = &flags.system_file {
            settings.system = Some(
                read_text_file(f, SYSTEM_FILE_MAX_BYTES, "--system-file").map_err(|reason| {
                    PlanError::ReadInput {
                        field: "system_file",
                        what: format!("--system-file {}", f.display()),
                        reason,
                    }
                })?,
            );
        }
        settings.output_schema = absolute_opt(settings.output_schema.as_ref())?;
        let base_cwd = match &settings.cwd {
            Some(d) => d.canonicalize().map_err(|source| PlanError::Cwd {
                described: format!("--cwd {}", d.display()),
                path: d.clone(),
                source,
            })?,
            None => current_dir()?,
        };
        Ok(Shared {
            flags,
            settings,
            base_cwd,
            task,
            schemas: HashMap::new(),
        })
    }

    /// The schema at `path`, compiled once per run.
    fn schema(&mut self, path: &Path) -> Result<Arc<OutputSchema>, PlanError> {
        if let Some(s) = self.schemas.get(path) {
            return Ok(s.clone());
        }
        let schema = Arc::new(OutputSchema::load(path)?);
        self.schemas.insert(path.to_path_buf(), schema.clone());
        Ok(schema)
    }
}

/// The step of member `m`.
pub(super) fn build_step(
    shared: &mut Shared<'_>,
    cfg: &Config,
    chain: Option<&ChainSpec>,
    m: &Member<'_>,
) -> Result<(Step, Vec<String>), PlanError> {
    let flags = shared.flags;
    let provider = cfg.resolve_provider(&m.provider)?;
    let name = provider.name().to_owned();
    let agent = m.agent;
    // The flags, else the agent, else the chain (its retry_on), else the
    // provider's defaults.
    let chain_layer = Settings {
        retry_on: chain
            .and_then(|c| c.retry_on.clone())
            .filter(|_| agent.is_some()),
        ..Settings::default()
    };
    let mut settings = shared.settings.clone();
    if let Some(a) = agent {
        settings = settings.combine(&a.settings);
    }
    settings = settings.combine(&chain_layer);
    if let Some(d) = cfg.provider_defaults(&name) {
        settings = settings.combine(&d.settings);
    }

    let agent_model = agent.and_then(|a| a.model_for_tier(flags.tier == Tier::Fast));
    let cwd = match (&shared.settings.cwd, &settings.cwd) {
        (None, Some(dir)) => dir.canonicalize().map_err(|source| PlanError::Cwd {
            described: format!(
                "the working directory {} of agent `{}`",
                dir.display(),
                agent.map_or("", |a| a.name.as_str())
            ),
            path: dir.clone(),
            source,
        })?,
        _ => shared.base_cwd.clone(),
    };

    // A wrapper's providers.yaml (AI_CLI_PROVIDERS_CONFIG, or one near the
    // working folder) before the config's aliases and default.
    let (wrapper, wrapper_warnings) =
        find_wrapper_models(&cwd, cfg.source.path(), &|k| std::env::var(k).ok())
            .map_err(PlanError::WrapperModels)?;
    let choice =
        cfg.resolve_model_with(&name, wrapper.as_ref(), flags.model.as_deref(), agent_model);
    // Read once (the cache is a file): checked against here, and asked
    // below for the efforts of the model it settles on.
    let catalog = catalog_for(provider.as_ref());
    let choice =
        check_model(&name, catalog.clone(), cfg.models.validate, choice).map_err(|e| match e {
            CatalogCheck::Ambiguous { model, candidates } => PlanError::ModelAmbiguous {
                provider: name.clone(),
                model,
                candidates: candidates.join(", "),
            },
            CatalogCheck::Absent { model } => PlanError::ModelNotInCatalog {
                provider: name.clone(),
                model,
            },
        })?;

    let mut parts = PromptParts::new(String::new(), &cwd);
    parts.agent_file = absolute_opt(flags.agent_file.as_ref())?
        .or_else(|| agent.and_then(|a| a.agent_file.clone()));
    parts.persona = flags
        .persona
        .clone()
        .or_else(|| agent.and_then(|a| a.persona.clone()));
    parts.context_files = flags
        .context
        .iter()
        .map(|p| absolute(p))
        .collect::<Result<_, _>>()?;
    parts.context_dir = absolute_opt(flags.context_dir.as_ref())?;
    parts.context_max = flags.context_max;
    parts.skip_context_file = flags.skip_context_file;
    parts.unattended_instruction = !flags.no_unattended_instruction;
    if let Some(max) = flags.prompt_max_bytes {
        parts.max_bytes = max;
    }
    if let Some(warn) = flags.prompt_warn_bytes {
        parts.warn_bytes = warn;
    }
    let skill = flags
        .skill
        .as_ref()
        .map(|call| {
            skill::skill_invocation(
                call,
                provider.as_ref(),
                &settings.env,
                &cwd,
                &shared.task.prompt,
            )
        })
        .transpose()?;
    shared.task.clone().apply_to(&mut parts);
    parts.instructions = agent.map(|a| a.instructions.clone()).unwrap_or_default();
    let output_schema = settings
        .output_schema
        .as_deref()
        .map(|p| shared.schema(p))
        .transpose()?;
    // Every CLI is told the schema in the prompt: only some take it natively.
    parts.output_schema = output_schema
        .as_ref()
        .map(|s| serde_json::to_string_pretty(s.raw()).unwrap_or_else(|_| s.raw().to_string()));
    if let Some(s) = &skill {
        parts.task = s.task.clone();
    }
    // A file of the task input is read as a context file: its error names
    // the task, where it was given.
    let mut prompt = prompt::assemble(&parts).map_err(|e| match e.path() {
        Some(p) if shared.task.files.iter().any(|f| f == p) => PlanError::TaskFile(e),
        _ => PlanError::Prompt(e),
    })?;
    // A slash command or a mention must open the prompt to be one.
    if let Some(prefix) = skill.as_ref().and_then(|s| s.prefix.as_ref()) {
        prompt.fresh = format!("{prefix}\n\n{}", prompt.fresh);
        prompt.resumed = format!("{prefix}\n\n{}", prompt.resumed);
    }
    let mut settings = settings;
    if let Some(s) = &skill {
        settings.extra_args.extend(s.extra_args.iter().cloned());
    }

    let mode = agent.and_then(|a| a.mode.as_ref());
    let (permission_mode, mode_notice) =
        modes::permission_mode(settings.permission_mode, agent, provider.as_ref());
    let edit_scope = match mode {
        None => EditScope::Any,
        Some(AgentMode::Classify) => EditScope::Nothing,
        Some(AgentMode::Edit { allow }) if allow.is_empty() => {
            EditScope::Only(vec![PathBuf::from(".")])
        }
        Some(AgentMode::Edit { allow }) => EditScope::Only(allow.clone()),
    };
    // The caller's lookup, else the catalog's (Codex's model/list).
    let levels = flags
        .effort_levels
        .of(&name, choice.model.as_deref())
        .or_else(|| catalog_efforts(catalog.as_ref(), choice.model.as_deref()));
    let knobs = effort::resolve(&name, choice.model.as_deref(), &settings, levels.as_deref());
    // The longest the deadline lets an attempt go on: its timeout, or the
    // limit of its extensions (three timeouts unless set).
    let deadline = match (settings.timeout, settings.extend_on_activity) {
        (Some(t), Some(_)) => Some(settings.max_timeout.unwrap_or(t.saturating_mul(3))),
        (t, _) => t,
    };
    let request = CliRequest {
        prompt: prompt.fresh.clone(),
        model: choice.model.clone(),
        permission_mode,
        system: settings.system,
        add_dirs: flags.add_dirs.clone(),
        cwd,
        resume: flags.resume.clone(),
        max_provider_retries: settings.max_provider_retries,
        extra_args: settings.extra_args,
        env: settings.env,
        env_clear: false,
        output_schema: settings.output_schema,
        mcp_servers: flags.mcp_servers.clone(),
        permissions: agent.map(load_permissions).transpose()?.flatten(),
        env_remove: settings.env_remove,
        reasoning_effort: knobs.effort,
        thinking_budget: knobs.thinking_budget,
        max_turns: knobs.max_turns,
        deadline,
        // Set by the run when it starts a gateway for the attempt.
        gateway: None,
    };
    let mut step = Step::new(provider, request);
    step.agent = agent.map(|a| a.name.clone());
    step.resumed_prompt = (prompt.resumed != prompt.fresh).then(|| prompt.resumed.clone());
    step.prompt = PromptShape {
        parts: prompt.parts,
        resumed_parts: prompt.resumed_parts,
        persona: prompt.persona,
    };
    step.binary = settings.binary;
    step.timeout = settings.timeout;
    step.idle_timeout = settings.idle_timeout;
    step.deadline = agentgate_supervise::DeadlinePolicy {
        warn: settings.timeout_warn.clone().unwrap_or_default(),
        extend_on_activity: settings.extend_on_activity,
        max_timeout: settings.max_timeout,
    };
    step.model_source = choice.source;
    step.model_resolution = choice.resolution;
    step.default_model = match step.model_source {
        // The configured default is stale: the invalid-model retry uses
        // the catalog's too.
        ModelSource::CatalogDefault => step.request.model.clone(),
        _ => cfg.default_model_with(&name, wrapper.as_ref()),
    };
    step.capacity_fallback = capacity_fallback(&name, cfg, step.request.model.as_deref());
    step.sandbox = super::sandbox::step_sandbox(&name, cfg, agent, flags)?;
    let strict = super::sandbox::needs_gateway(step.sandbox.as_ref());
    step.gateway = gateway(&name, cfg, agent, flags, strict);
    step.effort = knobs.report;
    step.retry_on = settings.retry_on;
    step.output_schema = output_schema;
    step.edit_scope = edit_scope;
    step.summary_file = agent.and_then(|a| a.summary_file.clone());
    step.workspace = settings.workspace.unwrap_or_default();
    step.quota_key = cfg.quota_key(&name);
    let mut warnings = prompt.warnings;
    warnings.extend(wrapper_warnings);
    let deadline_asked =
        !step.deadline.warn.is_empty() || step.deadline.extend_on_activity.is_some();
    if deadline_asked && step.timeout.is_none() {
        warnings.push(format!(
            "{name}: timeout_warn and extend_on_activity apply to a timeout, and this step has none (--timeout)"
        ));
    }
    if let Some(n) = mode_notice {
        warnings.push(n.clone());
        step.notices.push(n);
    }
    for n in knobs.warnings {
        warnings.push(n.clone());
        step.notices.push(n);
    }
    step.rotation = flags
        .rotation
        .policy_over(&agent.map(|a| a.rotation.clone()).unwrap_or_default());
    step.tools = flags.tools.clone();
    for t in agent.map(|a| &a.tools[..]).unwrap_or_default() {
        if !step.tools.contains(t) {
            step.tools.push(t.clone());
        }
    }
    Ok((step, warnings))
}

/// The agent's permissions file, read (YAML or JSON), when it has one.
fn load_permissions(agent: &AgentSpec) -> Result<Option<Permissions>, PlanError> {
    let Some(path) = &agent.permissions_file else {
        return Ok(None);
    };
    let bad = |reason: String| PlanError::Permissions {
        agent: agent.name.clone(),
        path: path.clone(),
        reason,
    };
    let text = read_text_file(path, OUTPUT_SCHEMA_MAX_BYTES, "a permissions file")
        .map_err(|e| bad(e.to_string()))?;
    let value: serde_json::Value = serde_saphyr::from_str(&text).map_err(|e| bad(e.to_string()))?;
    Permissions::from_value(value).map(Some).map_err(bad)
}

fn current_dir() -> Result<PathBuf, PlanError> {
    std::env::current_dir().map_err(|source| PlanError::Read {
        field: "request",
        what: "the current directory".into(),
        source,
    })
}

/// A path of the flags, made absolute against the process's working
/// directory (the agent may run elsewhere).
fn absolute(p: &Path) -> Result<PathBuf, PlanError> {
    if p.is_absolute() {
        return Ok(p.to_path_buf());
    }
    Ok(current_dir()?.join(p))
}

fn absolute_opt(p: Option<&PathBuf>) -> Result<Option<PathBuf>, PlanError> {
    p.map(|p| absolute(p)).transpose()
}

/// The model a run of `provider` with `model` retries with once after a
/// capacity error: Gemini's `models.gemini_capacity_fallback` (the seed's
/// `gemini-2.5-flash`), unless the model is a Flash one already (a lighter
/// model is what the retry is for).
fn capacity_fallback(provider: &str, cfg: &Config, model: Option<&str>) -> Option<String> {
    if provider != "gemini" {
        return None;
    }
    let fallback = cfg.models.gemini_capacity_fallback.clone()?;
    let flash = |m: &str| m.contains("flash");
    match model {
        Some(m) if flash(m) || m == fallback => None,
        _ => Some(fallback),
    }
}

/// The gateway of a step of `provider`: `--gateway`/`--no-gateway`, else
/// the agent's `gateway:`, else the config's for the provider, else its
/// `gateway.enabled`; on whatever they say when `needed` (a `strict`
/// sandbox); the flags' limits over the config's.
fn gateway(
    provider: &str,
    cfg: &Config,
    agent: Option<&AgentSpec>,
    flags: &RunFlags,
    needed: bool,
) -> Option<super::step::StepGateway> {
    let on = needed
        || flags
            .gateway
            .or_else(|| agent.and_then(|a| a.gateway))
            .unwrap_or_else(|| cfg.gateway.enabled_for(provider));
    if !on {
        return None;
    }
    let g = &cfg.gateway;
    let p = g.provider(provider);
    Some(super::step::StepGateway {
        limits: g.limits.or(flags.gateway_limits),
        record_model_calls: flags.record_model_calls || g.record_model_calls,
        ca_file: g.ca_file.clone(),
        response_timeout: g.response_timeout,
        upstream: p.and_then(|p| p.upstream.clone()),
        key_env: p.and_then(|p| p.key_env.clone()),
        key_file: p.and_then(|p| p.key_file.clone()),
    })
}
