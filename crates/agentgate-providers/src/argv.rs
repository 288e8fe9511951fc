//! A CLI's command line as a table, and the one interpreter that reads it.
//!
//! Built-in providers write their table as static data
//! (`providers/claude/mod.rs`); a CLI described in the config file gets one
//! built from its `command:`, `resume:` and `permission_modes:`. The
//! interpreter walks the parts in order: plain arguments, optional groups
//! (left out when a placeholder in them has no value), arguments only for a
//! fresh or a resumed run, the permission mode's arguments, one group per
//! extra directory, the caller's extra arguments, environment variables,
//! and, where a CLI needs what no table can say (a file it reads, a TOML
//! value, a merged JSON variable), a [`Part::Code`] function at the place
//! its arguments go.
//!
//! A table says what becomes of extra directories (`--add-dir`): a
//! [`Part::EachDir`], a [`Part::RefuseDirs`], or code that passes them on
//! (opencode's permission rules). The tests of `providers/mod.rs` check
//! that no built-in table drops them in silence.

use std::borrow::Cow;
use std::ffi::OsString;
use std::ops::Deref;
use std::path::Path;

use serde::Deserialize;

use super::provider::{CliCommand, CliRequest, CommandError};
use super::scratch::Scratch;
use super::template::{ExpandError, Template, Values};
use crate::PermissionMode;

/// Arguments: written in a built-in table, or read from the config file.
#[derive(Debug, Clone)]
pub enum Words {
    /// A built-in table's text (checked by the tests of every table).
    Static(&'static [&'static str]),
    /// Templates of the config file, checked when it was loaded.
    Parsed(Vec<Template>),
}

impl Words {
    fn templates(&self) -> Vec<Template> {
        match self {
            Words::Static(words) => words.iter().map(|w| Template::builtin(w)).collect(),
            Words::Parsed(templates) => templates.clone(),
        }
    }
}

/// A list of parts: a built-in table, or one built from the config file.
#[derive(Debug, Clone)]
pub enum Parts {
    /// A built-in table.
    Static(&'static [Part]),
    /// Built from the config file.
    Owned(Vec<Part>),
}

impl Deref for Parts {
    type Target = [Part];
    fn deref(&self) -> &[Part] {
        match self {
            Parts::Static(p) => p,
            Parts::Owned(p) => p,
        }
    }
}

/// The parts of each permission mode. A mode without an entry is refused,
/// except `default`, which then adds nothing.
#[derive(Debug, Clone, Default)]
pub struct Modes {
    /// `--permission-mode default`.
    pub default: Option<Parts>,
    /// `--permission-mode plan`.
    pub plan: Option<Parts>,
    /// `--permission-mode acceptEdits`.
    pub accept_edits: Option<Parts>,
    /// `--permission-mode bypass` (`--yolo`).
    pub bypass: Option<Parts>,
}

impl Modes {
    /// The parts of `mode`, if the table gives some.
    pub fn get(&self, mode: PermissionMode) -> Option<&Parts> {
        match mode {
            PermissionMode::Default => self.default.as_ref(),
            PermissionMode::Plan => self.plan.as_ref(),
            PermissionMode::AcceptEdits => self.accept_edits.as_ref(),
            PermissionMode::Bypass => self.bypass.as_ref(),
            // The CLI's default mode is the one in which it asks.
            PermissionMode::Ask => self.default.as_ref(),
        }
    }
}

/// What a [`Part::Code`] function sees.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The provider's name, for messages.
    pub provider: &'a str,
    /// The request.
    pub request: &'a CliRequest,
    /// The folder of the run where the CLI's files may be written (made
    /// when its path is first asked for).
    pub scratch: &'a Scratch,
    /// Whether the run resumes a session.
    pub resuming: bool,
}

impl Context<'_> {
    /// A [`CommandError::Unsupported`] of this provider.
    pub fn unsupported(&self, what: impl Into<String>) -> CommandError {
        CommandError::Unsupported {
            provider: self.provider.to_owned(),
            what: what.into(),
        }
    }
}

/// Code for what a CLI needs that a table cannot say; it may add
/// arguments (at its place in the table), variables and files.
pub type Code = fn(&Context<'_>, &mut CliCommand) -> Result<(), CommandError>;

/// One part of a CLI's command line.
#[derive(Debug, Clone)]
pub enum Part {
    /// These arguments; a placeholder in them without a value is an error.
    Args(Words),
    /// These arguments, left out when a placeholder in them has no value.
    Optional(Words),
    /// These parts only when the run resumes a session.
    Resuming(Parts),
    /// These parts only on a fresh run.
    Fresh(Parts),
    /// These parts, always: a run of parts two tables of one CLI share
    /// (its one-shot and long-lived command lines).
    Shared(Parts),
    /// The parts of the run's permission mode.
    Mode(Modes),
    /// The permission mode as one flag whose value names it
    /// (`--permission-mode plan`): the names of `default`, `plan`,
    /// `acceptEdits` and `bypass`, in that order.
    ModeFlag(&'static str, [&'static str; 4]),
    /// These arguments once per extra directory (`--add-dir`), with `{dir}`.
    EachDir(Words),
    /// Extra directories are refused: the CLI cannot do *this*.
    RefuseDirs(&'static str),
    /// The caller's extra arguments (`--extra-arg`, the config's
    /// `extra_args`).
    Extra,
    /// An environment variable, not set when a placeholder in its value has
    /// no value.
    Env(Cow<'static, str>, Template),
    /// Code, at its place in the command line.
    Code(Code),
}

/// [`Part::Args`] of a built-in table.
pub const fn args(words: &'static [&'static str]) -> Part {
    Part::Args(Words::Static(words))
}

/// [`Part::Optional`] of a built-in table.
pub const fn optional(words: &'static [&'static str]) -> Part {
    Part::Optional(Words::Static(words))
}

/// [`Part::ModeFlag`] of a built-in table: `mode_flag("--approval-mode",
/// ["default", "plan", "auto-edit", "yolo"])`.
pub const fn mode_flag(flag: &'static str, names: [&'static str; 4]) -> Part {
    Part::ModeFlag(flag, names)
}

/// [`Part::EachDir`] of a built-in table.
pub const fn each_dir(words: &'static [&'static str]) -> Part {
    Part::EachDir(Words::Static(words))
}

/// [`Part::Env`] of a built-in table.
pub const fn env(name: &'static str, value: &'static str) -> Part {
    Part::Env(Cow::Borrowed(name), Template::builtin(value))
}

// Parts that hold parts are written with these macros rather than const
// functions: a borrow inside a constructor call lives as long as the static
// it is in, a borrow passed to a function does not.

/// [`Part::Resuming`] of a built-in table: `resuming![args(&["resume"])]`.
macro_rules! resuming {
    ($($part:expr),* $(,)?) => {
        $crate::argv::Part::Resuming($crate::argv::Parts::Static(&[$($part),*]))
    };
}

/// [`Part::Fresh`] of a built-in table.
macro_rules! fresh {
    ($($part:expr),* $(,)?) => {
        $crate::argv::Part::Fresh($crate::argv::Parts::Static(&[$($part),*]))
    };
}

/// One mode's parts in a built-in table's [`Modes`]: `mode![args(&["--yolo"])]`.
macro_rules! mode {
    ($($part:expr),* $(,)?) => {
        Some($crate::argv::Parts::Static(&[$($part),*]))
    };
}

pub(crate) use {fresh, mode, resuming};

/// How the prompt reaches the CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PromptInput {
    /// On stdin, which is then closed (argv has a size limit per argument).
    Stdin,
    /// In argv: where the table has `{prompt}`, or where its code puts it.
    Argv,
}

/// The command line `parts` describe for `req`.
pub fn command(
    provider: &str,
    parts: &[Part],
    prompt: PromptInput,
    req: &CliRequest,
    program: &Path,
    scratch: &Scratch,
) -> Result<CliCommand, CommandError> {
    let ctx = Context {
        provider,
        request: req,
        scratch,
        resuming: req.resume.as_deref().is_some_and(|s| !s.is_empty()),
    };
    let cwd = req.cwd.to_string_lossy();
    let schema = req
        .output_schema
        .as_ref()
        .map(|s| std::path::absolute(s).unwrap_or_else(|_| s.clone()));
    let schema_text = schema.as_ref().map(|s| s.to_string_lossy());
    let retries = req.max_provider_retries.map(|n| n.to_string());
    let values = Values {
        prompt: Some(&req.prompt),
        model: req.model.as_deref(),
        session: req.resume.as_deref(),
        cwd: Some(&cwd),
        system: req.system.as_deref(),
        dir: None,
        output_schema: schema_text.as_deref(),
        max_retries: retries.as_deref(),
    };
    let mut out = CliCommand {
        program: program.to_path_buf(),
        args: Vec::new(),
        env: Vec::new(),
        stdin: match prompt {
            PromptInput::Stdin => Some(req.prompt.clone().into_bytes()),
            PromptInput::Argv => None,
        },
        cwd: req.cwd.clone(),
        files: Vec::new(),
        private_tmpdir: false,
        notices: Vec::new(),
        env_remove: Vec::new(),
    };
    let walk = Walk { ctx: &ctx, values };
    walk.parts(parts, &mut out)?;
    Ok(out)
}

struct Walk<'a> {
    ctx: &'a Context<'a>,
    values: Values<'a>,
}

impl Walk<'_> {
    fn parts(&self, parts: &[Part], out: &mut CliCommand) -> Result<(), CommandError> {
        parts.iter().try_for_each(|p| self.part(p, out))
    }

    fn part(&self, part: &Part, out: &mut CliCommand) -> Result<(), CommandError> {
        let req = self.ctx.request;
        match part {
            Part::Args(words) => {
                for t in words.templates() {
                    let arg = self.arg(&t).map_err(|e| plan_error(self.ctx, e))?;
                    out.args.push(arg);
                }
            }
            Part::Optional(words) => {
                let mut group = Vec::new();
                for t in words.templates() {
                    match self.arg(&t) {
                        Ok(arg) => group.push(arg),
                        Err(ExpandError::Missing(_)) => return Ok(()),
                        Err(e) => return Err(plan_error(self.ctx, e)),
                    }
                }
                out.args.extend(group);
            }
            Part::Shared(parts) => self.parts(parts, out)?,
            Part::Resuming(parts) if self.ctx.resuming => self.parts(parts, out)?,
            Part::Fresh(parts) if !self.ctx.resuming => self.parts(parts, out)?,
            Part::Resuming(_) | Part::Fresh(_) => {}
            Part::Mode(modes) => match modes.get(req.permission_mode) {
                Some(parts) => self.parts(parts, out)?,
                None if req.permission_mode == PermissionMode::Default => {}
                None => {
                    let (flag, key) = mode_name(req.permission_mode);
                    return Err(self.ctx.unsupported(format!(
                        "run with --permission-mode {flag}: its config has no `permission_modes.{key}`"
                    )));
                }
            },
            Part::ModeFlag(flag, names) => {
                let name = match req.permission_mode {
                    PermissionMode::Default | PermissionMode::Ask => names[0],
                    PermissionMode::Plan => names[1],
                    PermissionMode::AcceptEdits => names[2],
                    PermissionMode::Bypass => names[3],
                };
                out.args.push(OsString::from(*flag));
                out.args.push(OsString::from(name));
            }
            Part::EachDir(words) => {
                for dir in &req.add_dirs {
                    let text = dir.to_string_lossy();
                    let per_dir = Values {
                        dir: Some(&text),
                        ..self.values
                    };
                    for t in words.templates() {
                        // A lone `{dir}` keeps the path's bytes as they are.
                        let arg = if t.as_str() == "{dir}" {
                            dir.as_os_str().to_owned()
                        } else {
                            let arg = t.expand(&per_dir).map_err(|e| plan_error(self.ctx, e))?;
                            OsString::from(arg)
                        };
                        out.args.push(arg);
                    }
                }
            }
            Part::RefuseDirs(what) => {
                if !req.add_dirs.is_empty() {
                    return Err(self.ctx.unsupported(*what));
                }
            }
            Part::Extra => out.args.extend(req.extra_args.iter().map(OsString::from)),
            Part::Env(name, value) => match value.expand(&self.values) {
                Ok(v) => out
                    .env
                    .push((OsString::from(name.as_ref()), OsString::from(v))),
                Err(ExpandError::Missing(_)) => {}
                Err(e) => return Err(plan_error(self.ctx, e)),
            },
            Part::Code(code) => code(self.ctx, out)?,
        }
        Ok(())
    }

    /// One argument; a lone `{cwd}` keeps the path's bytes as they are.
    fn arg(&self, t: &Template) -> Result<OsString, ExpandError> {
        if t.as_str() == "{cwd}" {
            return Ok(self.ctx.request.cwd.as_os_str().to_owned());
        }
        t.expand(&self.values).map(OsString::from)
    }
}

fn plan_error(ctx: &Context<'_>, e: ExpandError) -> CommandError {
    match e {
        ExpandError::Missing(p) => ctx.unsupported(format!(
            "run without a value for {p}, which its command needs outside an optional group"
        )),
        ExpandError::Invalid(e) => {
            ctx.unsupported(format!("be run: its description is broken ({e})"))
        }
    }
}

/// The flag's spelling of `mode`, and its key under `permission_modes`.
pub fn mode_name(mode: PermissionMode) -> (&'static str, &'static str) {
    match mode {
        PermissionMode::Default => ("default", "default"),
        PermissionMode::Plan => ("plan", "plan"),
        PermissionMode::AcceptEdits => ("acceptEdits", "accept_edits"),
        PermissionMode::Bypass => ("bypass", "bypass"),
        PermissionMode::Ask => ("ask", "default"),
    }
}

/// Every template of a table, for the tests that check built-in tables.
#[cfg(test)]
pub(crate) fn templates(parts: &[Part]) -> Vec<Template> {
    let mut out = Vec::new();
    for p in parts {
        match p {
            Part::Args(w) | Part::Optional(w) | Part::EachDir(w) => out.extend(w.templates()),
            Part::Resuming(p) | Part::Fresh(p) | Part::Shared(p) => out.extend(templates(p)),
            Part::Mode(m) => {
                for p in [&m.default, &m.plan, &m.accept_edits, &m.bypass]
                    .into_iter()
                    .flatten()
                {
                    out.extend(templates(p));
                }
            }
            Part::Env(_, t) => out.push(t.clone()),
            Part::ModeFlag(..) | Part::RefuseDirs(_) | Part::Extra | Part::Code(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;

    fn table(parts: &[Part], r: &CliRequest) -> Result<Vec<String>, CommandError> {
        command(
            "mycli",
            parts,
            PromptInput::Stdin,
            r,
            Path::new("/bin/mycli"),
            &Scratch::at("/tmp"),
        )
        .map(|c| c.display_args())
    }

    fn req() -> CliRequest {
        CliRequest {
            prompt: "hi".into(),
            model: Some("m1".into()),
            cwd: PathBuf::from("/w"),
            system: Some(String::new()),
            ..CliRequest::default()
        }
    }

    #[test]
    fn groups_are_left_out_without_their_values() {
        static GROUPS: &[Part] = &[
            optional(&["--model", "{model}"]),
            optional(&["--resume", "{session}"]),
        ];
        assert_eq!(table(GROUPS, &req()).unwrap(), ["--model", "m1"]);
        // An empty value counts as none.
        static SYSTEM: &[Part] = &[optional(&["--system", "{system}"])];
        assert!(table(SYSTEM, &req()).unwrap().is_empty());
        // A plain argument without its value is an error that names it.
        static PLAIN: &[Part] = &[args(&["{session}"])];
        let err = table(PLAIN, &req()).unwrap_err().to_string();
        assert!(err.contains("{session}"), "{err}");
    }

    #[test]
    fn fresh_resumed_modes_dirs_and_extra_args_take_their_places() {
        static T: &[Part] = &[
            args(&["run"]),
            resuming![args(&["resume", "{session}"])],
            fresh![args(&["--new"])],
            Part::Mode(Modes {
                default: mode![],
                plan: mode![args(&["--read-only"])],
                accept_edits: None,
                bypass: None,
            }),
            each_dir(&["--dir={dir}"]),
            Part::Extra,
            env("MYCLI_MODEL", "{model}"),
            env("MYCLI_SESSION", "{session}"),
        ];
        let r = CliRequest {
            add_dirs: vec![PathBuf::from("/a"), PathBuf::from("/b")],
            extra_args: vec!["--x".into()],
            ..req()
        };
        let cmd = command(
            "mycli",
            T,
            PromptInput::Stdin,
            &r,
            Path::new("/bin/mycli"),
            &Scratch::at("/tmp"),
        )
        .unwrap();
        assert_eq!(
            cmd.display_args(),
            ["run", "--new", "--dir=/a", "--dir=/b", "--x"]
        );
        assert_eq!(cmd.env, [("MYCLI_MODEL".into(), "m1".into())]);
        assert_eq!(cmd.stdin.as_deref(), Some(&b"hi"[..]));
        let resumed = CliRequest {
            resume: Some("S1".into()),
            permission_mode: PermissionMode::Plan,
            ..req()
        };
        assert_eq!(
            table(T, &resumed).unwrap(),
            ["run", "resume", "S1", "--read-only"]
        );
        let bypass = CliRequest {
            permission_mode: PermissionMode::Bypass,
            ..req()
        };
        let err = table(T, &bypass).unwrap_err().to_string();
        assert!(err.contains("--permission-mode bypass"), "{err}");
    }
}
