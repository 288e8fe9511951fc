//! A `providers:` entry as written: a CLI described by its `command:`
//! (turned into a [`CustomProviderSpec`]), or defaults for a provider
//! (built in or described) without one.

use std::path::Path;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::paths::resolve_binary;
use super::yaml::{At, Entries, Secs, Text};
use agentgate_providers::argv::PromptInput;
use agentgate_providers::custom::json::{Pointers, Selector};
use agentgate_providers::custom::{
    CustomProviderSpec, ErrorSpec, MessageSpec, OutputFormat, OutputSpec, PermissionArgs,
    ResumeSpec, ToolResultSpec, ToolUseSpec, UsageSpec,
};
use agentgate_providers::{ArgTemplate, Placeholder, Template};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawProvider {
    #[serde(default)]
    pub command: Option<Spanned<Vec<ArgTemplate>>>,
    #[serde(default)]
    pub prompt: Option<Spanned<PromptInput>>,
    #[serde(default)]
    pub resume: Option<Spanned<Vec<ArgTemplate>>>,
    #[serde(default)]
    pub resume_command: Option<Spanned<Vec<ArgTemplate>>>,
    #[serde(default)]
    pub permission_modes: Option<Spanned<PermissionArgs>>,
    #[serde(default)]
    pub output: Option<Spanned<OutputFormat>>,
    #[serde(default, rename = "final")]
    pub final_record: Option<Spanned<Selector>>,
    #[serde(default)]
    pub text: Option<Spanned<Pointers>>,
    #[serde(default)]
    pub message: Option<Spanned<MessageSpec>>,
    #[serde(default)]
    pub session_id: Option<Spanned<Pointers>>,
    #[serde(default)]
    pub usage: Option<Spanned<UsageSpec>>,
    #[serde(default)]
    pub error: Option<Spanned<ErrorSpec>>,
    #[serde(default)]
    pub tool_use: Option<Spanned<ToolUseSpec>>,
    #[serde(default)]
    pub tool_result: Option<Spanned<ToolResultSpec>>,
    #[serde(default)]
    pub env: Option<Spanned<Entries<Text>>>,
    #[serde(default)]
    pub binary: Option<Spanned<String>>,
    #[serde(default)]
    pub env_allow: Option<Spanned<Vec<String>>>,
    // Defaults, for built-in and described providers alike.
    #[serde(default)]
    pub extra_args: Option<Spanned<Vec<Text>>>,
    #[serde(default)]
    pub models: Option<Spanned<Entries<Text>>>,
    #[serde(default)]
    pub default_model: Option<Spanned<Text>>,
    #[serde(default)]
    pub max_provider_retries: Option<Spanned<u32>>,
    #[serde(default)]
    pub timeout: Option<Spanned<Secs>>,
    #[serde(default)]
    pub idle_timeout: Option<Spanned<Secs>>,
    #[serde(default)]
    pub timeout_warn: Option<Spanned<String>>,
    #[serde(default)]
    pub extend_on_activity: Option<Spanned<Secs>>,
    #[serde(default)]
    pub max_timeout: Option<Spanned<Secs>>,
    /// The account the CLI is logged in to on this host (quota sharing).
    #[serde(default)]
    pub account: Option<Spanned<String>>,
    #[serde(default)]
    pub reasoning_effort: Option<Spanned<String>>,
    #[serde(default)]
    pub unsupported_effort: Option<Spanned<String>>,
    #[serde(default)]
    pub thinking_budget: Option<Spanned<u32>>,
    #[serde(default)]
    pub max_turns: Option<Spanned<u32>>,
    #[serde(default)]
    pub env_remove: Option<Spanned<Vec<Spanned<String>>>>,
    #[serde(default)]
    pub extra_args_mode: Option<Spanned<String>>,
}

impl RawProvider {
    /// The first key that only describes a CLI (and so needs `command:`),
    /// with its location.
    pub fn description_key(&self) -> Option<(&'static str, At)> {
        let keys: [(&'static str, Option<At>); 14] = [
            ("command", self.command.as_ref().map(At::of)),
            ("prompt", self.prompt.as_ref().map(At::of)),
            ("resume", self.resume.as_ref().map(At::of)),
            ("resume_command", self.resume_command.as_ref().map(At::of)),
            (
                "permission_modes",
                self.permission_modes.as_ref().map(At::of),
            ),
            ("output", self.output.as_ref().map(At::of)),
            ("final", self.final_record.as_ref().map(At::of)),
            ("text", self.text.as_ref().map(At::of)),
            ("message", self.message.as_ref().map(At::of)),
            ("session_id", self.session_id.as_ref().map(At::of)),
            ("usage", self.usage.as_ref().map(At::of)),
            ("error", self.error.as_ref().map(At::of)),
            ("tool_use", self.tool_use.as_ref().map(At::of)),
            ("tool_result", self.tool_result.as_ref().map(At::of)),
        ];
        keys.into_iter().find_map(|(k, at)| at.map(|a| (k, a)))
    }
}

pub(super) fn convert(
    name: &Spanned<String>,
    command: &Spanned<Vec<ArgTemplate>>,
    raw: &RawProvider,
    base: &Path,
) -> Result<CustomProviderSpec, (At, String)> {
    let at_name = At::of(name);
    let label = |m: String| format!("provider `{}`: {m}", name.value);
    let at_command = At::of(command);
    let env = match &raw.env {
        Some(e) => e
            .value
            .0
            .iter()
            .map(|(k, v)| {
                Template::parse(&v.0)
                    .map(|t| (k.value.clone(), t))
                    .map_err(|err| (At::of(k), label(err.to_string())))
            })
            .collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
    };
    let mut command = command.value.iter().cloned();
    let program = match command.next() {
        Some(ArgTemplate::Arg(t)) if t.placeholders().next().is_none() => {
            // No placeholders: the template is the program's name.
            t.as_str().replace("{{", "{").replace("}}", "}")
        }
        Some(_) => {
            return Err((
                at_command,
                label("the command's first element is the program: a plain name or path, without placeholders or groups".into()),
            ));
        }
        None => {
            return Err((
                at_command,
                label("`command` is empty: it starts with the program".into()),
            ));
        }
    };
    let args: Vec<ArgTemplate> = command.collect();
    let session_group = args
        .iter()
        .any(|a| a.is_group() && a.placeholders().contains(&Placeholder::Session));
    let resume = match (raw.resume.as_ref(), raw.resume_command.as_ref()) {
        (Some(_), Some(c)) => {
            return Err((
                At::of(c),
                label("give `resume` (arguments appended) or `resume_command` (a whole command), not both".into()),
            ));
        }
        (Some(r), None) => ResumeSpec::Append(r.value.clone()),
        (None, Some(c)) => {
            let mut it = c.value.iter();
            match it.next() {
                Some(ArgTemplate::Arg(t)) if t.as_str() == raw_program(&program) => {}
                _ => {
                    return Err((
                        At::of(c),
                        label(format!(
                            "`resume_command` starts with the same program as `command` (`{program}`)"
                        )),
                    ));
                }
            }
            ResumeSpec::Command(it.cloned().collect())
        }
        (None, None) if session_group => ResumeSpec::InCommand,
        (None, None) => ResumeSpec::Unsupported,
    };
    let uses_prompt = args
        .iter()
        .any(|a| a.placeholders().contains(&Placeholder::Prompt));
    let prompt = match &raw.prompt {
        Some(p) => p.value,
        None if uses_prompt => PromptInput::Argv,
        None => PromptInput::Stdin,
    };
    // A program given as a path (`./bin/mycli`, `~/bin/mycli`) is relative
    // to the file's folder, as `binary:` is; a bare name is looked up on
    // PATH.
    let binary = match &raw.binary {
        Some(b) => Some(resolve_binary(&b.value, base)),
        None if program.contains('/') || program.starts_with("~/") => {
            Some(resolve_binary(&program, base))
        }
        None => None,
    };
    let spec = CustomProviderSpec {
        name: name.value.clone(),
        program,
        args,
        prompt,
        resume,
        permission_modes: raw
            .permission_modes
            .as_ref()
            .map(|p| p.value.clone())
            .unwrap_or_default(),
        env,
        binary,
        output: OutputSpec {
            format: raw.output.as_ref().map(|o| o.value).unwrap_or_default(),
            final_record: raw.final_record.as_ref().map(|s| s.value.clone()),
            text: raw.text.as_ref().map(|s| s.value.clone()),
            message: raw.message.as_ref().map(|s| s.value.clone()),
            session_id: raw.session_id.as_ref().map(|s| s.value.clone()),
            usage: raw.usage.as_ref().map(|s| s.value.clone()),
            error: raw.error.as_ref().map(|s| s.value.clone()),
            tool_use: raw.tool_use.as_ref().map(|s| s.value.clone()),
            tool_result: raw.tool_result.as_ref().map(|s| s.value.clone()),
        },
        env_allow: raw
            .env_allow
            .as_ref()
            .map(|s| s.value.clone())
            .unwrap_or_default(),
    };
    spec.validate().map_err(|e| {
        let at = match e.field {
            "command" => Some(at_command),
            "prompt" => raw.prompt.as_ref().map(At::of),
            "resume" => raw
                .resume
                .as_ref()
                .or(raw.resume_command.as_ref())
                .map(At::of),
            "resume_command" => raw.resume_command.as_ref().map(At::of),
            "permission_modes" => raw.permission_modes.as_ref().map(At::of),
            "final" => raw.final_record.as_ref().map(At::of),
            "text" => raw.text.as_ref().map(At::of),
            "message" => raw.message.as_ref().map(At::of),
            "session_id" => raw.session_id.as_ref().map(At::of),
            "usage" => raw.usage.as_ref().map(At::of),
            "error" => raw.error.as_ref().map(At::of),
            "tool_use" => raw.tool_use.as_ref().map(At::of),
            "tool_result" => raw.tool_result.as_ref().map(At::of),
            "env" => raw.env.as_ref().map(At::of),
            "binary" => raw.binary.as_ref().map(At::of),
            _ => None,
        };
        (at.unwrap_or(at_name), label(e.message))
    })?;
    Ok(spec)
}

/// The program as a template source (braces doubled), to compare with
/// `resume_command`'s first element.
fn raw_program(program: &str) -> String {
    program.replace('{', "{{").replace('}', "}}")
}
