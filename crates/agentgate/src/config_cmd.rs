//! `agentgate config show|check`: the resolved config, and where each value
//! came from (the file and line, or a default); `check` also refuses a
//! schedule or a watched folder whose runs `sandbox:` would refuse
//! (`agentgate_core::automation_sandbox_faults`).

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use agentgate_core::PermissionMode;
use agentgate_core::{AgentMode, Config, Origins, RetryOn};
use agentgate_core::{is_secret, mask_secret_flags, secret_flag_values};
use agentgate_providers::ArgTemplate;
use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::{Value, json};

use crate::output::Stdout;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    /// Print the resolved config: which file and how it was found, its
    /// format, every provider default, agent (with its resolved model) and
    /// chain, and where each value came from.
    Show {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Load the config and report problems (exit 2 when it is invalid, or
    /// when a schedule's or a watched folder's runs are below
    /// `sandbox.require`).
    Check,
}

/// Run `agentgate config`.
pub fn run(args: Args, config_flag: Option<&Path>) -> anyhow::Result<ExitCode> {
    let cfg = Config::load(config_flag)?;
    let mut stdout = Stdout::new();
    match args.command {
        Sub::Show { json } => {
            let listing = listing(&cfg);
            if json {
                stdout.json(&listing, None)?;
            } else {
                stdout.text(&text(&listing))?;
            }
        }
        Sub::Check => {
            let faults = agentgate_core::automation_sandbox_faults(&cfg);
            if !faults.is_empty() {
                anyhow::bail!(
                    "{} (sandbox.require and the sandbox's rules, as serve and worker apply them):\n  {}",
                    match faults.len() {
                        1 => "one automated run the config starts would be refused".to_owned(),
                        n => format!("{n} automated runs the config starts would be refused"),
                    },
                    faults.join("\n  ")
                );
            }
            let l = listing(&cfg);
            let mut out = match &l.config.path {
                Some(p) => format!(
                    "ok: {p} ({}, found by {})\n",
                    l.config.format, l.config.found_by
                ),
                None => "ok: no config file (built-in defaults)\n".to_owned(),
            };
            let _ = writeln!(
                out,
                "{} provider defaults, {} agents, {} chains, {} values to redact, {} schedules, {} watched folders",
                l.providers.len(),
                l.agents.len(),
                l.chains.len(),
                cfg.redact.len(),
                cfg.schedules.len(),
                cfg.watches.len()
            );
            for w in &l.warnings {
                let _ = writeln!(out, "warning: {w}");
            }
            stdout.text(&out)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Serialize)]
struct Listing {
    config: FileInfo,
    warnings: Vec<String>,
    providers: Vec<Entity>,
    agents: Vec<Entity>,
    chains: Vec<Entity>,
}

#[derive(Debug, Serialize)]
struct FileInfo {
    /// The file read, or null for built-in defaults.
    path: Option<String>,
    /// flag, env, project, user or default.
    found_by: &'static str,
    /// native, providers.yaml or cli_agents.yaml.
    format: &'static str,
}

#[derive(Debug, Serialize)]
struct Entity {
    name: String,
    /// Providers: builtin or custom.
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    /// Where the entry is: `FILE:LINE`.
    source: String,
    fields: Fields,
    /// Agents: the model a run uses without --model.
    #[serde(skip_serializing_if = "Option::is_none")]
    model_choice: Option<Value>,
}

/// Key -> {value, source}, in the order given.
#[derive(Debug, Default)]
struct Fields(Vec<(&'static str, Value, String)>);

impl Serialize for Fields {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v, src) in &self.0 {
            map.serialize_entry(k, &json!({"value": v, "source": src}))?;
        }
        map.end()
    }
}

/// Where values come from: `FILE:LINE` for what the file wrote.
struct Sources<'a> {
    file: String,
    origins: &'a Origins,
}

impl Sources<'_> {
    fn of(&self, key: &str) -> Option<String> {
        self.origins.key(key).map(|l| format!("{}:{l}", self.file))
    }

    fn entry(&self) -> String {
        match self.origins.line() {
            Some(l) => format!("{}:{l}", self.file),
            None => "built-in".to_owned(),
        }
    }

    /// `key` with `value`; from the file, else `default` when `value` is
    /// set by agentgate, else left out (null) when nothing sets it.
    fn field(&self, fields: &mut Fields, key: &'static str, value: Value) {
        let src = self.of(key).unwrap_or_else(|| "default".to_owned());
        fields.0.push((key, value, src));
    }
}

fn opt<T: Serialize>(v: Option<T>) -> Value {
    v.map_or(Value::Null, |v| json!(v))
}

fn duration(d: Option<Duration>) -> Value {
    d.map_or(Value::Null, |d| json!(format_duration(d)))
}

fn format_duration(d: Duration) -> String {
    if d.subsec_millis() != 0 {
        format!("{}ms", d.as_millis())
    } else {
        format!("{}s", d.as_secs())
    }
}

fn env(pairs: &[(String, String)]) -> Value {
    if pairs.is_empty() {
        return Value::Null;
    }
    let mut m = serde_json::Map::new();
    for (k, v) in pairs {
        let v = if is_secret(k) {
            "<redacted>"
        } else {
            v.as_str()
        };
        m.insert(k.clone(), json!(v));
    }
    Value::Object(m)
}

/// Extra arguments, the values of secret flags (`--api-key=...`) hidden.
fn args(v: &[String]) -> Value {
    list(&mask_secret_flags(v, &secret_flag_values(v)))
}

fn list(v: &[String]) -> Value {
    if v.is_empty() { Value::Null } else { json!(v) }
}

fn retry(r: Option<&RetryOn>) -> Value {
    r.map_or(Value::Null, |r| json!(r.describe()))
}

fn permission_name(m: PermissionMode) -> &'static str {
    match m {
        PermissionMode::Default => "default",
        PermissionMode::Plan => "plan",
        PermissionMode::AcceptEdits => "acceptEdits",
        PermissionMode::Bypass => "bypass",
        PermissionMode::Ask => "ask",
    }
}

fn arg_text(a: &ArgTemplate) -> String {
    match a {
        ArgTemplate::Arg(t) => t.as_str().to_owned(),
        ArgTemplate::Group(g) => format!(
            "[{}]",
            g.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", ")
        ),
    }
}

fn listing(cfg: &Config) -> Listing {
    let file = cfg
        .source
        .path()
        .map_or_else(|| "<none>".to_owned(), |p| p.display().to_string());
    let providers = cfg
        .defaults
        .iter()
        .map(|d| {
            let s = Sources {
                file: file.clone(),
                origins: &d.origins,
            };
            let mut f = Fields::default();
            let spec = cfg.provider_spec(&d.provider).filter(|_| !d.builtin);
            if let Some(spec) = spec {
                let command: Vec<String> = std::iter::once(spec.program.clone())
                    .chain(spec.args.iter().map(arg_text))
                    .collect();
                s.field(&mut f, "command", json!(command));
                s.field(&mut f, "binary", opt(spec.binary.as_deref()));
                let env: Vec<(String, String)> = spec
                    .env
                    .iter()
                    .map(|(k, t)| (k.clone(), t.as_str().to_owned()))
                    .collect();
                s.field(&mut f, "env", self::env(&env));
            } else {
                s.field(
                    &mut f,
                    "binary",
                    opt(d.settings.binary.as_ref().map(|b| b.display().to_string())),
                );
                s.field(&mut f, "env", env(&d.settings.env));
            }
            s.field(&mut f, "extra_args", args(&d.settings.extra_args));
            let models: Vec<Value> = d
                .models
                .iter()
                .map(|(alias, target)| {
                    json!({
                        "alias": alias,
                        "model": target,
                        "source": s.of(&format!("models.{alias}")),
                    })
                })
                .collect();
            s.field(
                &mut f,
                "models",
                if models.is_empty() {
                    Value::Null
                } else {
                    json!(models)
                },
            );
            s.field(&mut f, "default_model", opt(d.default_model.as_deref()));
            s.field(
                &mut f,
                "max_provider_retries",
                opt(d.settings.max_provider_retries),
            );
            s.field(&mut f, "timeout", duration(d.settings.timeout));
            s.field(&mut f, "idle_timeout", duration(d.settings.idle_timeout));
            s.field(&mut f, "account", opt(d.account.as_deref()));
            Entity {
                name: d.provider.clone(),
                kind: Some(if d.builtin { "builtin" } else { "custom" }),
                source: s.entry(),
                fields: f,
                model_choice: None,
            }
        })
        .collect();
    let agents = cfg
        .agents
        .iter()
        .map(|a| {
            let s = Sources {
                file: file.clone(),
                origins: &a.origins,
            };
            let mut f = Fields::default();
            s.field(&mut f, "provider", json!(a.provider));
            s.field(&mut f, "model", opt(a.model.as_deref()));
            s.field(&mut f, "model_fast", opt(a.model_fast.as_deref()));
            s.field(&mut f, "model_thinking", opt(a.model_thinking.as_deref()));
            s.field(&mut f, "mode", opt(a.mode.as_ref().map(AgentMode::as_str)));
            if let Some(AgentMode::Edit { allow }) = &a.mode {
                let allow: Vec<String> = allow.iter().map(|p| p.display().to_string()).collect();
                s.field(&mut f, "allow", json!(allow));
            }
            s.field(
                &mut f,
                "permission_mode",
                opt(a.settings.permission_mode.map(permission_name)),
            );
            s.field(&mut f, "system", opt(a.settings.system.as_deref()));
            let path =
                |p: &Option<std::path::PathBuf>| opt(p.as_ref().map(|p| p.display().to_string()));
            s.field(&mut f, "agent_file", path(&a.agent_file));
            s.field(&mut f, "persona", opt(a.persona.as_deref()));
            if !a.instructions.is_empty() {
                let files: Vec<String> = a
                    .instructions
                    .iter()
                    .map(|i| {
                        let p = i.path.display().to_string();
                        if i.required {
                            p
                        } else {
                            format!("{p} (if present)")
                        }
                    })
                    .collect();
                s.field(&mut f, "instructions", json!(files));
            }
            s.field(&mut f, "summary_file", path(&a.summary_file));
            s.field(&mut f, "cwd", path(&a.settings.cwd));
            s.field(&mut f, "timeout", duration(a.settings.timeout));
            s.field(&mut f, "idle_timeout", duration(a.settings.idle_timeout));
            s.field(&mut f, "env", env(&a.settings.env));
            s.field(&mut f, "extra_args", args(&a.settings.extra_args));
            s.field(&mut f, "binary", path(&a.settings.binary));
            s.field(&mut f, "retry_on", retry(a.settings.retry_on.as_ref()));
            s.field(
                &mut f,
                "max_provider_retries",
                opt(a.settings.max_provider_retries),
            );
            s.field(&mut f, "output_schema", path(&a.settings.output_schema));
            s.field(
                &mut f,
                "workspace",
                opt(a.settings.workspace.map(|w| w.as_str())),
            );
            if a.permissions_file.is_some() {
                s.field(&mut f, "permissions_file", path(&a.permissions_file));
            }
            let choice = cfg.resolve_model(&a.provider, None, a.model.as_deref());
            Entity {
                name: a.name.clone(),
                kind: None,
                source: s.entry(),
                fields: f,
                model_choice: Some(json!({
                    "model": choice.model,
                    "source": choice.source.as_str(),
                    "resolution": choice.resolution,
                })),
            }
        })
        .collect();
    let chains = cfg
        .chains
        .iter()
        .map(|c| {
            let s = Sources {
                file: file.clone(),
                origins: &c.origins,
            };
            let mut f = Fields::default();
            s.field(&mut f, "agents", json!(c.agents));
            s.field(&mut f, "retry_on", retry(c.retry_on.as_ref()));
            s.field(&mut f, "on_dirty", json!(c.on_dirty.as_str()));
            s.field(&mut f, "handoff", json!(c.handoff.as_str()));
            Entity {
                name: c.name.clone(),
                kind: None,
                source: s.entry(),
                fields: f,
                model_choice: None,
            }
        })
        .collect();
    Listing {
        config: FileInfo {
            path: cfg.source.path().map(|p| p.display().to_string()),
            found_by: cfg.source.kind(),
            format: cfg.format.as_str(),
        },
        warnings: cfg.warnings.clone(),
        providers,
        agents,
        chains,
    }
}

/// A value on one line.
fn inline(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(inline).collect::<Vec<_>>().join(", "),
        Value::Object(m) if m.contains_key("alias") => format!(
            "{} -> {}",
            m.get("alias").map(inline).unwrap_or_default(),
            m.get("model").map(inline).unwrap_or_default()
        ),
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| format!("{k}={}", inline(v)))
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

fn text(l: &Listing) -> String {
    let mut out = String::new();
    match &l.config.path {
        Some(p) => {
            let _ = writeln!(
                out,
                "config: {p} (found by {}, format {})",
                l.config.found_by, l.config.format
            );
        }
        None => {
            let _ = writeln!(out, "config: none found, built-in defaults");
        }
    }
    for w in &l.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    let sections = [
        ("provider", &l.providers),
        ("agent", &l.agents),
        ("chain", &l.chains),
    ];
    for (what, entities) in sections {
        for e in entities {
            let kind = e.kind.map(|k| format!(" ({k})")).unwrap_or_default();
            let _ = writeln!(out, "\n{what} {}{kind}  [{}]", e.name, e.source);
            for (k, v, src) in &e.fields.0 {
                if v.is_null() {
                    continue;
                }
                let _ = writeln!(out, "  {k}: {}  [{src}]", inline(v));
            }
            if let Some(m) = &e.model_choice {
                let model = m["model"].as_str().unwrap_or("(the CLI's default)");
                let how = m["resolution"]
                    .as_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|| m["source"].as_str().unwrap_or_default().to_owned());
                let _ = writeln!(out, "  resolved model: {model}  [{how}]");
            }
        }
    }
    if l.providers.is_empty() && l.agents.is_empty() && l.chains.is_empty() {
        let _ = writeln!(out, "\nno provider defaults, agents or chains");
    }
    out
}
