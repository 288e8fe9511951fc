//! A CLI agentgate has no description of, as the config file's
//! `providers:` section describes it: its command template and where its
//! output keeps the answer, the session id, the usage figures and the
//! errors. The config module reads the YAML into these types.

use serde::Deserialize;

use super::json::{Condition, Pointers, Selector};
use crate::PermissionMode;
use crate::argv::PromptInput;
use crate::template::{ArgTemplate, Placeholder, Template};

/// A provider described in the config file.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomProviderSpec {
    /// Its name, as given to `--provider` and reported in envelopes.
    pub name: String,
    /// The executable's default name: the command's first element.
    pub program: String,
    /// The rest of the command of a fresh run.
    pub args: Vec<ArgTemplate>,
    /// How the prompt reaches the CLI.
    pub prompt: PromptInput,
    /// How a session is resumed.
    pub resume: ResumeSpec,
    /// Arguments for each permission mode.
    pub permission_modes: PermissionArgs,
    /// Environment variables for the CLI (values are templates; a variable
    /// whose placeholder has no value is not set).
    pub env: Vec<(String, Template)>,
    /// The executable to look up instead of [`Self::program`]: a name on
    /// `PATH` or a path.
    pub binary: Option<String>,
    /// How to read its output.
    pub output: OutputSpec,
    /// `env_allow:`: its own variables, kept in its environment inside a
    /// sandbox (`--sandbox`): names, or prefixes ending in `*`.
    pub env_allow: Vec<String>,
}

/// How a session is resumed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResumeSpec {
    /// It is not: `--session` and `--resume` are refused.
    Unsupported,
    /// The command itself has an optional group with `{session}`.
    InCommand,
    /// These arguments are appended to the command (`resume:`).
    Append(Vec<ArgTemplate>),
    /// This command replaces the fresh one, without its first element
    /// (`resume_command:`).
    Command(Vec<ArgTemplate>),
}

/// Arguments appended for each permission mode. A mode without an entry
/// is refused, except `default`, which then adds nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PermissionArgs {
    /// `--permission-mode default`.
    #[serde(default)]
    pub default: Option<Vec<ArgTemplate>>,
    /// `--permission-mode plan`.
    #[serde(default)]
    pub plan: Option<Vec<ArgTemplate>>,
    /// `--permission-mode acceptEdits`.
    #[serde(default, alias = "acceptEdits")]
    pub accept_edits: Option<Vec<ArgTemplate>>,
    /// `--permission-mode bypass` (`--yolo`).
    #[serde(default)]
    pub bypass: Option<Vec<ArgTemplate>>,
}

impl PermissionArgs {
    /// The arguments for `mode`, if the config gives some.
    pub fn get(&self, mode: PermissionMode) -> Option<&[ArgTemplate]> {
        match mode {
            PermissionMode::Default => self.default.as_deref(),
            PermissionMode::Plan => self.plan.as_deref(),
            PermissionMode::AcceptEdits => self.accept_edits.as_deref(),
            PermissionMode::Bypass => self.bypass.as_deref(),
            PermissionMode::Ask => self.default.as_deref(),
        }
    }

    /// Whether any mode is mapped.
    pub fn any(&self) -> bool {
        [&self.default, &self.plan, &self.accept_edits, &self.bypass]
            .iter()
            .any(|m| m.is_some())
    }

    fn all(&self) -> impl Iterator<Item = &ArgTemplate> {
        [&self.default, &self.plan, &self.accept_edits, &self.bypass]
            .into_iter()
            .flatten()
            .flatten()
    }
}

/// The format of the CLI's stdout.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputFormat {
    /// Plain text: the whole of stdout is the answer.
    #[default]
    Text,
    /// One JSON document, the final record, printed at the end.
    Json,
    /// One JSON object per line, as the CLI works.
    Jsonl,
}

impl OutputFormat {
    /// The name used in the config file.
    pub fn as_str(self) -> &'static str {
        match self {
            OutputFormat::Text => "text",
            OutputFormat::Json => "json",
            OutputFormat::Jsonl => "jsonl",
        }
    }
}

/// Where the facts are in the output.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OutputSpec {
    /// The format.
    pub format: OutputFormat,
    /// jsonl: the line that is the final record (`final:`).
    pub final_record: Option<Selector>,
    /// The answer, in the final record.
    pub text: Option<Pointers>,
    /// jsonl: lines that carry an assistant message.
    pub message: Option<MessageSpec>,
    /// The native session id: in the JSON document, or on any jsonl line
    /// (the first found wins).
    pub session_id: Option<Pointers>,
    /// Token and cost figures.
    pub usage: Option<UsageSpec>,
    /// Errors.
    pub error: Option<ErrorSpec>,
    /// jsonl: lines that report a tool call.
    pub tool_use: Option<ToolUseSpec>,
    /// jsonl: lines that report a tool's result.
    pub tool_result: Option<ToolResultSpec>,
}

/// jsonl lines that report a tool call, streamed as `tool_use` events (the
/// envelope's `tool_activity` counts them; the class comes from the name).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolUseSpec {
    /// Which lines.
    #[serde(rename = "match")]
    pub matches: Selector,
    /// The tool's name.
    pub name: Pointers,
    /// The call's id, which its result names (numbered when absent).
    #[serde(default)]
    pub id: Option<Pointers>,
    /// The call's input.
    #[serde(default)]
    pub input: Option<Pointers>,
}

/// jsonl lines that report a tool's result, streamed as `tool_result`
/// events.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolResultSpec {
    /// Which lines.
    #[serde(rename = "match")]
    pub matches: Selector,
    /// The id of the call it answers.
    pub id: Pointers,
    /// The output.
    #[serde(default)]
    pub output: Option<Pointers>,
    /// When the call failed.
    #[serde(default)]
    pub is_error: Option<Condition>,
    /// A shell tool's exit code.
    #[serde(default)]
    pub exit_code: Option<Pointers>,
}

/// jsonl lines that carry an assistant message, streamed as `message`
/// events; without a final record's text, the last one is the answer.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MessageSpec {
    /// Which lines (every line when absent).
    #[serde(default, rename = "match")]
    pub matches: Option<Selector>,
    /// The message text in such a line.
    pub text: Pointers,
}

/// Token and cost figures, with agentgate's semantics (see
/// [`agentgate_protocol::Usage`]): `input_tokens` counts every input token,
/// cache reads and writes included, so list the parts when the CLI reports
/// them apart.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsageSpec {
    /// jsonl: lines that each report one model call's figures (they are
    /// added up). Without it, the figures are the final record's totals.
    #[serde(default, rename = "match")]
    pub matches: Option<Selector>,
    /// All input tokens.
    #[serde(default)]
    pub input_tokens: Option<Pointers>,
    /// All output tokens, reasoning included.
    #[serde(default)]
    pub output_tokens: Option<Pointers>,
    /// The part of the input read from the prompt cache.
    #[serde(default)]
    pub cache_read_input_tokens: Option<Pointers>,
    /// The part of the input written to the prompt cache.
    #[serde(default)]
    pub cache_creation_input_tokens: Option<Pointers>,
    /// The part of the output spent on reasoning.
    #[serde(default)]
    pub reasoning_tokens: Option<Pointers>,
    /// Input plus output (computed when absent).
    #[serde(default)]
    pub total_tokens: Option<Pointers>,
    /// Cost in US dollars.
    #[serde(default)]
    pub cost_usd: Option<Pointers>,
    /// How full the context was after the last model call.
    #[serde(default)]
    pub context_tokens: Option<Pointers>,
}

impl UsageSpec {
    fn is_empty(&self) -> bool {
        [
            &self.input_tokens,
            &self.output_tokens,
            &self.cache_read_input_tokens,
            &self.cache_creation_input_tokens,
            &self.reasoning_tokens,
            &self.total_tokens,
            &self.cost_usd,
            &self.context_tokens,
        ]
        .iter()
        .all(|f| f.is_none())
    }
}

/// Errors the CLI reports in its output. They are classified like any
/// provider's: the common rows and the HTTP status defaults of
/// `docs/errors.md`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorSpec {
    /// jsonl: lines that are errors. Without it, only the final record is
    /// looked at.
    #[serde(default, rename = "match")]
    pub matches: Option<Selector>,
    /// The error message.
    #[serde(default)]
    pub message: Option<Pointers>,
    /// The HTTP status of the failed model request.
    #[serde(default)]
    pub status: Option<Pointers>,
    /// A machine-readable error code or type.
    #[serde(default)]
    pub code: Option<Pointers>,
    /// When the final record is a failure. Without it, a final record is
    /// one when `message`, `status` or `code` resolves in it.
    #[serde(default)]
    pub is_error: Option<Condition>,
    /// jsonl: an error line ends the run as a failure (the default). With
    /// `false`, error lines are notices the CLI may recover from (retries):
    /// they only type a failure that the exit status or the final record
    /// reveals.
    #[serde(default = "yes")]
    pub terminal: bool,
}

fn yes() -> bool {
    true
}

/// A rule of the provider section that a description breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SpecError {
    /// The key at fault (`command`, `text`, ...), or `""` for the name.
    pub field: &'static str,
    /// What is wrong and what to do.
    pub message: String,
}

fn fail(field: &'static str, message: impl Into<String>) -> Result<(), SpecError> {
    Err(SpecError {
        field,
        message: message.into(),
    })
}

impl CustomProviderSpec {
    /// Every template of the description: command, resume, permissions, env.
    fn templates(&self) -> impl Iterator<Item = &ArgTemplate> {
        let resume: &[ArgTemplate] = match &self.resume {
            ResumeSpec::Append(a) | ResumeSpec::Command(a) => a,
            ResumeSpec::Unsupported | ResumeSpec::InCommand => &[],
        };
        self.args
            .iter()
            .chain(resume)
            .chain(self.permission_modes.all())
    }

    /// Whether a template (env included) uses `p`.
    pub fn uses(&self, p: Placeholder) -> bool {
        self.templates().any(|t| t.placeholders().contains(&p))
            || self.env.iter().any(|(_, t)| t.uses(p))
    }

    /// The executable looked up: [`Self::binary`], else [`Self::program`].
    pub fn binary_name(&self) -> &str {
        self.binary.as_deref().unwrap_or(&self.program)
    }

    /// Check the rules a description follows.
    pub fn validate(&self) -> Result<(), SpecError> {
        self.validate_name()?;
        self.validate_command()?;
        self.validate_output()?;
        for (key, _) in &self.env {
            if key.is_empty() || key.contains(['=', '\0']) {
                return fail(
                    "env",
                    format!("`{key}` is not an environment variable name"),
                );
            }
        }
        if self.binary.as_deref().is_some_and(|b| b.trim().is_empty()) {
            return fail("binary", "`binary` is empty");
        }
        Ok(())
    }

    fn validate_name(&self) -> Result<(), SpecError> {
        let name = &self.name;
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        {
            return fail(
                "",
                format!("`{name}` is not a provider name (use letters, digits, `-`, `_` and `.`)"),
            );
        }
        if crate::registry::description(name).is_some() {
            return fail(
                "",
                format!(
                    "`{name}` is the name of a built-in adapter; give the described CLI another name"
                ),
            );
        }
        Ok(())
    }

    fn validate_command(&self) -> Result<(), SpecError> {
        if self.program.trim().is_empty() {
            return fail(
                "command",
                "the command's first element (the program) is empty",
            );
        }
        let fresh_has = |p| self.args.iter().any(|a| a.placeholders().contains(&p));
        match self.prompt {
            PromptInput::Argv => {
                if !fresh_has(Placeholder::Prompt) {
                    return fail("prompt", "`prompt: argv` needs `{prompt}` in the command");
                }
                if let ResumeSpec::Command(c) = &self.resume
                    && !c
                        .iter()
                        .any(|a| a.placeholders().contains(&Placeholder::Prompt))
                {
                    return fail(
                        "resume_command",
                        "`prompt: argv` needs `{prompt}` in `resume_command` too",
                    );
                }
            }
            PromptInput::Stdin => {
                if self
                    .templates()
                    .any(|t| t.placeholders().contains(&Placeholder::Prompt))
                {
                    return fail(
                        "prompt",
                        "the prompt goes on stdin (`prompt: stdin`) but the command has `{prompt}`; say `prompt: argv`, or drop `{prompt}`",
                    );
                }
            }
        }
        if let Some(a) = self
            .args
            .iter()
            .find(|a| !a.is_group() && a.placeholders().contains(&Placeholder::Session))
        {
            return fail(
                "command",
                format!(
                    "`{}` uses {{session}}, which has no value on a fresh run: put it in an optional group (`[--resume, \"{{session}}\"]`) or under `resume`",
                    match a {
                        ArgTemplate::Arg(t) => t.as_str(),
                        ArgTemplate::Group(_) => "",
                    }
                ),
            );
        }
        let in_command = fresh_has(Placeholder::Session);
        match (&self.resume, in_command) {
            (ResumeSpec::Append(_) | ResumeSpec::Command(_), true) => fail(
                "resume",
                "the command already resumes with a `{session}` group; drop `resume`/`resume_command`, or the group",
            ),
            (ResumeSpec::InCommand, false) => fail(
                "command",
                "the command has no optional group with `{session}` to resume with",
            ),
            _ => Ok(()),
        }
    }

    fn validate_output(&self) -> Result<(), SpecError> {
        let o = &self.output;
        let format = o.format.as_str();
        if let Some(u) = &o.usage
            && u.is_empty()
        {
            return fail(
                "usage",
                "`usage` maps no figure (input_tokens, output_tokens, ...)",
            );
        }
        if let Some(e) = &o.error
            && e.message.is_none()
            && e.status.is_none()
            && e.code.is_none()
            && e.is_error.is_none()
        {
            return fail(
                "error",
                "`error` maps nothing (message, status, code, is_error)",
            );
        }
        let jsonl_only = |field: &'static str, present: bool| {
            if present && o.format != OutputFormat::Jsonl {
                fail(
                    field,
                    format!("`{field}` applies to jsonl output, not {format}"),
                )
            } else {
                Ok(())
            }
        };
        jsonl_only("final", o.final_record.is_some())?;
        jsonl_only("message", o.message.is_some())?;
        jsonl_only("tool_use", o.tool_use.is_some())?;
        jsonl_only("tool_result", o.tool_result.is_some())?;
        jsonl_only(
            "usage",
            o.usage.as_ref().is_some_and(|u| u.matches.is_some()),
        )?;
        jsonl_only(
            "error",
            o.error.as_ref().is_some_and(|e| e.matches.is_some()),
        )?;
        match o.format {
            OutputFormat::Text => {
                for (field, present) in [
                    ("text", o.text.is_some()),
                    ("session_id", o.session_id.is_some()),
                    ("usage", o.usage.is_some()),
                    ("error", o.error.is_some()),
                ] {
                    if present {
                        return fail(
                            field,
                            format!(
                                "`{field}` reads JSON output; with `output: text` the whole stdout is the answer (say `output: json` or `jsonl`)"
                            ),
                        );
                    }
                }
                if self.resume != ResumeSpec::Unsupported {
                    return fail(
                        "resume",
                        "a text CLI reports no session id to resume; resuming needs json or jsonl output with `session_id`",
                    );
                }
            }
            OutputFormat::Json => {
                if o.text.is_none() {
                    return fail(
                        "text",
                        "json output needs `text`: the pointer to the answer",
                    );
                }
            }
            OutputFormat::Jsonl => {
                let has_final = o.final_record.is_some();
                if !has_final && o.message.is_none() {
                    return fail(
                        "final",
                        "jsonl output needs `final` (which line is the final record, with `text`) or `message` (which lines carry the answer)",
                    );
                }
                let needs_final = [
                    ("text", o.text.is_some()),
                    (
                        "usage",
                        o.usage.as_ref().is_some_and(|u| u.matches.is_none()),
                    ),
                    (
                        "error",
                        o.error
                            .as_ref()
                            .is_some_and(|e| e.matches.is_none() || e.is_error.is_some()),
                    ),
                ];
                for (field, present) in needs_final {
                    if present && !has_final {
                        return fail(
                            field,
                            format!(
                                "`{field}` reads the final record, and there is none: add `final` (e.g. `final: {{type: result}}`){}",
                                match field {
                                    "usage" => ", or `match` for the lines that carry figures",
                                    "error" =>
                                        ", or `match` for the error lines (without `is_error`)",
                                    _ => "",
                                }
                            ),
                        );
                    }
                }
                if has_final && o.text.is_none() && o.message.is_none() {
                    return fail(
                        "text",
                        "jsonl output with `final` needs `text`: the pointer to the answer in the final record",
                    );
                }
            }
        }
        if self.resume != ResumeSpec::Unsupported && o.session_id.is_none() {
            return fail(
                "resume",
                "resuming needs `session_id`: the pointer to the session id in the output",
            );
        }
        Ok(())
    }
}
