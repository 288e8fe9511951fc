//! The config file as written: strict YAML (an unknown key is an error
//! naming the key and its line), turned into checked descriptions.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_saphyr::{MessageFormatter, Spanned};

use super::json::{Pointers, Selector};
use super::provider::{
    CustomProviderSpec, ErrorSpec, MessageSpec, OutputSpec, PermissionArgs, PromptInput,
    ResumeSpec, ToolResultSpec, ToolUseSpec, UsageSpec,
};
use super::template::{ArgTemplate, Placeholder, Template};
use super::{CONFIG_VERSION, ConfigError};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    version: Spanned<u32>,
    #[serde(default)]
    providers: ProviderMap,
}

/// `providers:` in file order, with the location of each name.
#[derive(Debug, Default)]
struct ProviderMap(Vec<(Spanned<String>, RawProvider)>);

impl<'de> Deserialize<'de> for ProviderMap {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ProviderMap;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map of provider names to their descriptions")
            }
            fn visit_unit<E: de::Error>(self) -> Result<ProviderMap, E> {
                Ok(ProviderMap::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ProviderMap, A::Error> {
                let mut all = Vec::new();
                while let Some(entry) = map.next_entry::<Spanned<String>, RawProvider>()? {
                    all.push(entry);
                }
                Ok(ProviderMap(all))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProvider {
    command: Spanned<Vec<ArgTemplate>>,
    #[serde(default)]
    prompt: Option<Spanned<PromptInput>>,
    #[serde(default)]
    resume: Option<Spanned<Vec<ArgTemplate>>>,
    #[serde(default)]
    resume_command: Option<Spanned<Vec<ArgTemplate>>>,
    #[serde(default)]
    permission_modes: Option<Spanned<PermissionArgs>>,
    #[serde(default)]
    output: Option<Spanned<super::provider::OutputFormat>>,
    #[serde(default, rename = "final")]
    final_record: Option<Spanned<Selector>>,
    #[serde(default)]
    text: Option<Spanned<Pointers>>,
    #[serde(default)]
    message: Option<Spanned<MessageSpec>>,
    #[serde(default)]
    session_id: Option<Spanned<Pointers>>,
    #[serde(default)]
    usage: Option<Spanned<UsageSpec>>,
    #[serde(default)]
    error: Option<Spanned<ErrorSpec>>,
    #[serde(default)]
    tool_use: Option<Spanned<ToolUseSpec>>,
    #[serde(default)]
    tool_result: Option<Spanned<ToolResultSpec>>,
    #[serde(default)]
    env: Option<Spanned<EnvMap>>,
    #[serde(default)]
    binary: Option<Spanned<String>>,
}

/// `env:` in file order.
#[derive(Debug, Default)]
struct EnvMap(Vec<(String, Template)>);

impl<'de> Deserialize<'de> for EnvMap {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = EnvMap;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map of variable names to values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EnvMap, A::Error> {
                let mut all = Vec::new();
                while let Some(entry) = map.next_entry::<String, Template>()? {
                    all.push(entry);
                }
                Ok(EnvMap(all))
            }
        }
        d.deserialize_map(V)
    }
}

/// Where a key of a provider section is, for errors found after parsing.
#[derive(Debug, Clone, Copy)]
struct At {
    line: u64,
    column: u64,
}

impl At {
    fn of<T>(s: &Spanned<T>) -> At {
        At {
            line: s.referenced.line(),
            column: s.referenced.column(),
        }
    }
}

/// Parse a config file's text; `path` names it in errors and anchors
/// relative `binary` paths.
pub(super) fn parse(text: &str, path: &Path) -> Result<Vec<CustomProviderSpec>, ConfigError> {
    let invalid = |at: Option<At>, message: String| ConfigError::Invalid {
        path: path.to_path_buf(),
        line: at.map(|a| a.line),
        column: at.map(|a| a.column),
        message,
    };
    if text
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    {
        return Err(invalid(
            None,
            format!("the file is empty: it starts with `version: {CONFIG_VERSION}`"),
        ));
    }
    let options = serde_saphyr::options! {
        // YAML 1.1's `yes`/`on`/`y` booleans would turn arguments into `true`.
        strict_booleans: true,
    };
    let raw: RawFile = serde_saphyr::from_str_with_options(text, options).map_err(|e| {
        let at = e.location().map(|l| At {
            line: l.line(),
            column: l.column(),
        });
        let message = serde_saphyr::DefaultMessageFormatter.format_message(&e);
        // Keep the error on one line, whatever the YAML held.
        let message: String = message
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        // The library's hint is for programmers, not for the file's author.
        let message = match message.split_once(", set DuplicateKeyPolicy") {
            Some((head, _)) => head.to_owned(),
            None => message,
        };
        invalid(at.filter(|a| a.line > 0), message)
    })?;
    if raw.version.value != CONFIG_VERSION {
        return Err(invalid(
            Some(At::of(&raw.version)),
            format!(
                "unsupported config version {} (this agentgate reads version {CONFIG_VERSION})",
                raw.version.value
            ),
        ));
    }
    let base = path.parent().unwrap_or(Path::new("."));
    raw.providers
        .0
        .into_iter()
        .map(|(name, p)| convert(&name, p, base).map_err(|(at, m)| invalid(Some(at), m)))
        .collect()
}

fn convert(
    name: &Spanned<String>,
    raw: RawProvider,
    base: &Path,
) -> Result<CustomProviderSpec, (At, String)> {
    let at_name = At::of(name);
    let label = |m: String| format!("provider `{}`: {m}", name.value);
    let at_command = At::of(&raw.command);
    let mut command = raw.command.value.into_iter();
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
    let binary = raw.binary.as_ref().map(|b| resolve_binary(&b.value, base));
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
        env: raw
            .env
            .as_ref()
            .map(|e| e.value.0.clone())
            .unwrap_or_default(),
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

/// `~/x` is under the home folder; a relative path with a `/` is relative
/// to the config file's folder; a bare name is looked up on `PATH`.
fn resolve_binary(b: &str, base: &Path) -> String {
    if let Some(rest) = b.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME")
    {
        return PathBuf::from(home).join(rest).display().to_string();
    }
    let p = Path::new(b);
    if p.is_relative() && b.contains('/') {
        return base.join(p).display().to_string();
    }
    b.to_owned()
}
