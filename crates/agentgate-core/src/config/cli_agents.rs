//! The `cli_agents.yaml` users migrate from: `version: 1` and a LIST of
//! `agents:`, each with a command template (`{{prompt}}`, `{{model}}`).
//!
//! For a built-in provider, agentgate's own adapter builds the invocation:
//! the command's first element only chooses the executable (when it is a
//! path or another name than the adapter's), and its other arguments are
//! not used (a warning says so). For any other provider, the command
//! becomes a described CLI named after the agent (plain-text output; the
//! prompt in argv where `{{prompt}}` is, else on stdin). The agents form a
//! chain named `default`, in file order; each agent's `retry_on` applies
//! to its own failures, and names that are no error type become
//! case-insensitive substring patterns.
//!
//! The Gardener's contract (seed 004) fills what the file leaves out:
//! each agent's instruction files are the seed's order, each if present
//! (the global AGENTS.md, then DATA_DIR's AGENTS.md and GARDENER.md, see
//! [`data_dir`]), and a `mode: edit` agent writes its summary file to
//! `DATA_DIR/.gardener/last_cli_result.json`; agentgate's own
//! `instructions:` and `summary_file:` keys replace them.
//! `permissions_file` is read when a run is planned and applied the CLI's
//! way (`agentgate_providers::permissions`).

use std::path::{Path, PathBuf};

use regex::Regex;
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::agent::{AgentMode, AgentSpec, ModeName, check_name, instruction_files};
use super::chain::ChainSpec;
use super::origin::Origins;
use super::parsed::{Parsed, check_version};
use super::paths::{resolve_binary, resolve_path};
use super::retry::RawItem;
use super::settings::{self, SettingsKeys};
use super::yaml::{Entries, Fault, Secs, Text, from_str, line};
use crate::prompt::InstructionFile;
use agentgate_providers::argv::PromptInput;
use agentgate_providers::custom::{CustomProviderSpec, OutputSpec, ResumeSpec};
use agentgate_providers::description;
use agentgate_providers::{ArgTemplate, Placeholder, Template};

/// The name of the chain a cli_agents.yaml yields.
pub const DEFAULT_CHAIN: &str = "default";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    version: Spanned<u32>,
    agents: Spanned<Vec<Spanned<RawAgent>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAgent {
    name: Spanned<String>,
    provider: Spanned<String>,
    #[serde(default)]
    mode: Option<Spanned<ModeName>>,
    #[serde(default)]
    command: Option<Spanned<Vec<Spanned<Text>>>>,
    #[serde(default)]
    model_thinking: Option<Spanned<Text>>,
    #[serde(default)]
    model_fast: Option<Spanned<Text>>,
    #[serde(default)]
    permissions_file: Option<Spanned<String>>,
    #[serde(default)]
    working_dir: Option<Spanned<String>>,
    #[serde(default)]
    timeout_s: Option<Spanned<Secs>>,
    #[serde(default)]
    env: Option<Spanned<Entries<Text>>>,
    #[serde(default)]
    retry_on: Option<Spanned<Vec<Spanned<RawItem>>>>,
    /// agentgate's own: the instruction files, instead of the defaults.
    #[serde(default)]
    instructions: Option<Spanned<Vec<Spanned<String>>>>,
    /// agentgate's own: the summary file, instead of the default.
    #[serde(default)]
    summary_file: Option<Spanned<String>>,
}

pub(super) fn parse(text: &str, base: &Path) -> Result<Parsed, Fault> {
    let raw: RawFile = from_str(text)?;
    check_version(&raw.version)?;
    let mut out = Parsed::default();
    if raw.agents.value.is_empty() {
        return Err(Fault::at(&raw.agents, "`agents` is empty"));
    }
    let mut chain = ChainSpec {
        name: DEFAULT_CHAIN.to_owned(),
        origins: Origins::at(raw.agents.referenced.line()),
        ..ChainSpec::default()
    };
    chain.origins.set("agents", raw.agents.referenced.line());
    for item in &raw.agents.value {
        let a = &item.value;
        check_name("agent", &a.name)?;
        if out.agents.iter().any(|x| x.name == a.name.value) {
            return Err(Fault::at(
                &a.name,
                format!("agent `{}` is given twice", a.name.value),
            ));
        }
        let agent = convert(a, base, &mut out)?;
        chain.agents.push(agent.name.clone());
        out.agents.push(agent);
    }
    out.chains.push(chain);
    Ok(out)
}

fn convert(a: &RawAgent, base: &Path, out: &mut Parsed) -> Result<AgentSpec, Fault> {
    let name = &a.name.value;
    let label = |m: String| format!("agent `{name}`: {m}");
    let mut spec = AgentSpec {
        name: name.clone(),
        origins: Origins::at(line(&a.name)),
        ..AgentSpec::default()
    };
    spec.origins.set("provider", line(&a.provider));
    let command: Vec<&Spanned<Text>> = a.command.iter().flat_map(|c| &c.value).collect();
    match description(&a.provider.value) {
        Some(kind) => {
            spec.provider = kind.name.to_owned();
            if let (Some(c), Some(first)) = (&a.command, command.first()) {
                let program = first.value.0.trim();
                let default = kind.binary;
                if program.contains('/') || program.starts_with('~') || program != default {
                    spec.settings.binary = Some(PathBuf::from(resolve_binary(program, base)));
                    spec.origins.set("binary", line(c));
                }
                if command.len() > 1 {
                    let rest: Vec<&str> = command[1..].iter().map(|t| t.value.0.as_str()).collect();
                    out.warnings.push(format!(
                        "agent `{name}` (line {}): the command's arguments are not used, agentgate's {kind} adapter builds the invocation (ignored: {})",
                        line(c),
                        rest.join(" ")
                    ));
                }
            }
        }
        None => {
            let Some(c) = &a.command else {
                return Err(Fault::at(
                    &a.provider,
                    label(format!(
                        "`{}` is not a built-in provider, so the agent needs `command:` (a list with {{{{prompt}}}})",
                        a.provider.value
                    )),
                ));
            };
            let custom = described(name, &command, base).map_err(|m| Fault::at(c, label(m)))?;
            spec.provider = custom.name.clone();
            spec.origins.set("command", line(c));
            out.providers.push(custom);
        }
    }
    let text = |key: &str, t: &Option<Spanned<Text>>, o: &mut Origins| -> Result<_, Fault> {
        let Some(t) = t else { return Ok(None) };
        if t.value.0.trim().is_empty() {
            return Err(Fault::at(t, label(format!("`{key}` is empty"))));
        }
        o.set(key, line(t));
        Ok(Some(t.value.0.trim().to_owned()))
    };
    spec.model_thinking = text("model_thinking", &a.model_thinking, &mut spec.origins)?;
    spec.model_fast = text("model_fast", &a.model_fast, &mut spec.origins)?;
    // The default tier is thinking.
    spec.model = spec.model_thinking.clone();
    if let Some(t) = &a.model_thinking {
        spec.origins.set("model", line(t));
    }
    if let Some(m) = &a.mode {
        spec.mode = Some(match m.value {
            ModeName::Classify => AgentMode::Classify,
            ModeName::Edit => AgentMode::Edit {
                allow: vec![PathBuf::from(".")],
            },
        });
        spec.origins.set("mode", line(m));
    }
    if let Some(p) = &a.permissions_file {
        // Read when a run is planned: applied the CLI's way, or a notice
        // says it is not (see agentgate_providers::permissions).
        spec.permissions_file = Some(resolve_path(p.value.trim(), base));
        spec.origins.set("permissions_file", line(p));
    }
    let keys = SettingsKeys {
        cwd: a.working_dir.as_ref().map(|w| ("working_dir", w)),
        timeout: a.timeout_s.as_ref(),
        env: a.env.as_ref(),
        retry_on: a.retry_on.as_ref(),
        lenient_retry_names: true,
        ..SettingsKeys::default()
    };
    let binary = spec.settings.binary.take();
    spec.settings = settings::convert(&keys, base, &label, &mut spec.origins)?;
    spec.settings.binary = binary;
    spec.instructions = match &a.instructions {
        Some(list) => {
            spec.origins.set("instructions", line(list));
            instruction_files(list, base, &label)?
        }
        None => default_instructions(base, spec.settings.cwd.as_deref(), user_config_dir()),
    };
    spec.summary_file = match &a.summary_file {
        Some(s) if s.value.trim().is_empty() => {
            return Err(Fault::at(s, label("`summary_file` is empty".into())));
        }
        Some(s) => {
            spec.origins.set("summary_file", line(s));
            Some(resolve_path(s.value.trim(), base))
        }
        // The seed's edit-mode contract: DATA_DIR/.gardener/last_cli_result.json.
        None if matches!(spec.mode, Some(AgentMode::Edit { .. })) => Some(
            data_dir(base, spec.settings.cwd.as_deref())
                .join(GARDENER_DIR)
                .join(SUMMARY_FILE),
        ),
        None => None,
    };
    Ok(spec)
}

/// The folder of the Gardener's local files: a cli_agents.yaml kept where
/// the seed puts it (`DATA_DIR/.gardener/cli_agents.yaml`) has DATA_DIR as
/// the parent of `.gardener`; else the agent's working directory; else the
/// file's folder.
pub(super) fn data_dir(base: &Path, working_dir: Option<&Path>) -> PathBuf {
    if base.file_name().is_some_and(|n| n == GARDENER_DIR)
        && let Some(parent) = base.parent()
    {
        return parent.to_path_buf();
    }
    working_dir.unwrap_or(base).to_path_buf()
}

/// The folder of the Gardener's local files in DATA_DIR.
pub const GARDENER_DIR: &str = ".gardener";

/// The name of an edit agent's default summary file in [`GARDENER_DIR`].
pub const SUMMARY_FILE: &str = "last_cli_result.json";

/// The seed's instruction order, each file optional: the global AGENTS.md
/// (`USER_CONFIG/agentgate/AGENTS.md`), DATA_DIR's AGENTS.md, then
/// DATA_DIR's GARDENER.md.
fn default_instructions(
    base: &Path,
    working_dir: Option<&Path>,
    user_config: Option<PathBuf>,
) -> Vec<InstructionFile> {
    let data = data_dir(base, working_dir);
    let global = user_config.map(|d| d.join("agentgate").join("AGENTS.md"));
    global
        .into_iter()
        .chain([data.join("AGENTS.md"), data.join("GARDENER.md")])
        .map(|path| InstructionFile {
            path,
            required: false,
        })
        .collect()
}

/// `$XDG_CONFIG_HOME` when absolute, else `~/.config` (as config discovery
/// finds the user's config file).
fn user_config_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    match (var("XDG_CONFIG_HOME"), var("HOME")) {
        (Some(x), _) if x.is_absolute() => Some(x),
        (_, Some(h)) => Some(h.join(".config")),
        _ => None,
    }
}

/// The described CLI of an agent whose provider agentgate does not know.
fn described(
    name: &str,
    command: &[&Spanned<Text>],
    base: &Path,
) -> Result<CustomProviderSpec, String> {
    let Some((first, rest)) = command.split_first() else {
        return Err("`command` is empty: it starts with the program".into());
    };
    let program = first.value.0.trim().to_owned();
    let binary =
        (program.contains('/') || program.starts_with('~')).then(|| resolve_binary(&program, base));
    let mut args: Vec<ArgTemplate> = Vec::new();
    for arg in rest {
        let t = translate(&arg.value.0)?;
        if t.uses(Placeholder::Model) {
            // Without a model the argument (and its flag) is left out.
            let mut group = Vec::new();
            if let Some(ArgTemplate::Arg(prev)) = args.last()
                && prev.placeholders().next().is_none()
                && prev.as_str().starts_with('-')
                && let Some(ArgTemplate::Arg(prev)) = args.pop()
            {
                group.push(prev);
            }
            group.push(t);
            args.push(ArgTemplate::Group(group));
        } else {
            args.push(ArgTemplate::Arg(t));
        }
    }
    let prompt = if args
        .iter()
        .any(|a| a.placeholders().contains(&Placeholder::Prompt))
    {
        PromptInput::Argv
    } else {
        PromptInput::Stdin
    };
    let spec = CustomProviderSpec {
        name: name.to_owned(),
        program,
        args,
        prompt,
        resume: ResumeSpec::Unsupported,
        permission_modes: Default::default(),
        env: Vec::new(),
        binary,
        output: OutputSpec::default(),
        env_allow: Vec::new(),
    };
    spec.validate().map_err(|e| e.message)?;
    Ok(spec)
}

/// `{{prompt}}` and `{{model}}` (also `{{cwd}}`, `{{system}}`) become
/// placeholders; every other brace is literal.
fn translate(arg: &str) -> Result<Template, String> {
    let re = Regex::new(r"\{\{\s*(prompt|model|cwd|system)\s*\}\}").map_err(|e| e.to_string())?;
    let escape = |s: &str| s.replace('{', "{{").replace('}', "}}");
    let mut source = String::new();
    let mut last = 0;
    for c in re.captures_iter(arg) {
        let (Some(all), Some(name)) = (c.get(0), c.get(1)) else {
            continue;
        };
        source.push_str(&escape(&arg[last..all.start()]));
        source.push('{');
        source.push_str(name.as_str());
        source.push('}');
        last = all.end();
    }
    source.push_str(&escape(&arg[last..]));
    Template::parse(&source).map_err(|e| e.to_string())
}
