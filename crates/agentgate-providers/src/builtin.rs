//! A built-in provider is a [`Description`]: static data that the rest of
//! agentgate reads (planning, the argv interpreter, the decoder, the
//! classifier, health). Each provider's folder holds its description.

use std::fmt;
use std::path::{Path, PathBuf};

use agentgate_protocol::Usage;

use super::argv::{self, Part, PromptInput};
use super::catalog::CatalogSource;
use super::cli_homes::CliHomes;
use super::login::LoginFacts;
use super::provider::{
    CliCommand, CliRequest, CommandError, Features, PostRun, Provider, Verification, WarmCommand,
    WarmWire,
};
use super::scratch::Scratch;
use super::skills::{GENERIC_SKILLS, SkillFacts};
use crate::classify::ProviderTable;
use crate::decode::{Decoded, Decoder};
use crate::permissions::{self, PermissionsWay};

/// Everything agentgate knows about one built-in CLI.
#[derive(Debug, Clone, Copy)]
pub struct Description {
    /// The name on the command line and in envelopes (`claude`).
    pub name: &'static str,
    /// The executable looked up on `PATH` (`cursor-agent`).
    pub binary: &'static str,
    /// How far the description has been checked.
    pub verification: Verification,
    /// What the CLI supports, for `agentgate providers`.
    pub features: Features,
    /// Whether the CLI reports reasoning at all (in its output or in a
    /// session file read after the run).
    pub exposes_reasoning: bool,
    /// How the prompt reaches it.
    pub prompt: PromptInput,
    /// Its command line, read by [`argv::command`].
    pub argv: &'static [Part],
    /// A fresh decoder of its output.
    pub decoder: fn() -> Box<dyn Decoder>,
    /// Facts read after it exited (a session file), if any.
    pub post_run: Option<fn(&PostRun<'_>) -> Vec<Decoded>>,
    /// The thread's totals before its last turn, from the CLI's own
    /// history, if it keeps one (see
    /// [`Provider::thread_totals_before_last_turn`]).
    pub thread_history: Option<ThreadHistory>,
    /// What its errors mean.
    pub errors: &'static ProviderTable,
    /// The record its output format promises to end a turn with, in words
    /// for an error message (`"its closing `result` record"`); `None` when
    /// it promises none. See [`Provider::final_record`].
    pub final_record: Option<&'static str>,
    /// Where it keeps its login.
    pub login: LoginFacts,
    /// Its long-lived mode, if agentgate drives one.
    pub warm: Option<WarmMode>,
    /// Where it finds skills and how it invokes one.
    pub skills: Option<SkillFacts>,
    /// Where its model catalog comes from, if agentgate knows one.
    pub catalog: Option<CatalogSource>,
    /// How it takes an agent's permissions file.
    pub permissions: PermissionsWay,
    /// Its variables and state folders inside a sandbox.
    pub sandbox: crate::sandbox_facts::SandboxFacts,
}

/// Reads a thread's totals before its last turn from the CLI's files:
/// `(homes, thread, totals just reported)`.
pub type ThreadHistory = fn(&CliHomes, &str, &Usage) -> Option<Usage>;

/// A CLI's long-lived mode: its wire and command line (read by
/// [`argv::command`] with no prompt; the session it resumes and the turns
/// go over the wire, except where the table passes `{session}`).
#[derive(Debug, Clone, Copy)]
pub struct WarmMode {
    /// The wire.
    pub wire: WarmWire,
    /// The command line.
    pub argv: &'static [Part],
    /// See [`WarmCommand::cumulative_usage`].
    pub cumulative_usage: bool,
    /// See [`WarmCommand::load_needs_a_later_minute`].
    pub load_needs_a_later_minute: bool,
}

impl Provider for Description {
    fn name(&self) -> &str {
        self.name
    }

    fn binary_name(&self) -> &str {
        self.binary
    }

    fn verification(&self) -> Verification {
        self.verification
    }

    fn features(&self) -> Features {
        self.features
    }

    fn command(
        &self,
        req: &CliRequest,
        program: &Path,
        scratch: &Scratch,
    ) -> Result<CliCommand, CommandError> {
        let mut cmd = argv::command(self.name, self.argv, self.prompt, req, program, scratch)?;
        if let Some(p) = &req.permissions {
            let (args, notices) = permissions::apply(self.permissions, self.name, p);
            cmd.args.extend(args);
            cmd.notices.extend(notices);
        }
        Ok(cmd)
    }

    fn decoder(&self) -> Box<dyn Decoder> {
        (self.decoder)()
    }

    fn warm_command(
        &self,
        req: &CliRequest,
        program: &Path,
        scratch: &Scratch,
    ) -> Option<Result<WarmCommand, CommandError>> {
        let warm = self.warm?;
        Some(
            argv::command(
                self.name,
                warm.argv,
                PromptInput::Argv,
                req,
                program,
                scratch,
            )
            .map(|mut command| {
                if let Some(p) = &req.permissions {
                    let (args, notices) = permissions::apply(self.permissions, self.name, p);
                    command.args.extend(args);
                    command.notices.extend(notices);
                }
                command
            })
            .map(|command| WarmCommand {
                command,
                wire: warm.wire,
                cumulative_usage: warm.cumulative_usage,
                load_needs_a_later_minute: warm.load_needs_a_later_minute,
            }),
        )
    }

    fn exposes_reasoning(&self) -> bool {
        self.exposes_reasoning
    }

    fn thread_totals_before_last_turn(
        &self,
        homes: &CliHomes,
        thread: &str,
        after: &Usage,
    ) -> Option<Usage> {
        self.thread_history
            .and_then(|read| read(homes, thread, after))
    }

    fn post_run(&self, ctx: &PostRun<'_>) -> Vec<Decoded> {
        self.post_run.map(|f| f(ctx)).unwrap_or_default()
    }

    fn errors(&self) -> &'static ProviderTable {
        self.errors
    }

    fn final_record(&self) -> Option<&str> {
        self.final_record
    }

    fn login(&self) -> Option<&LoginFacts> {
        Some(&self.login)
    }

    fn skills(&self) -> &SkillFacts {
        self.skills.as_ref().unwrap_or(&GENERIC_SKILLS)
    }

    fn catalog(&self) -> Option<&CatalogSource> {
        self.catalog.as_ref()
    }

    fn sandbox_env_allow(&self) -> Vec<String> {
        self.sandbox
            .env_allow
            .iter()
            .map(|p| (*p).to_owned())
            .collect()
    }

    fn sandbox_state(&self, get: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Vec<PathBuf> {
        self.sandbox
            .state
            .iter()
            .filter_map(|s| s.resolve(get))
            .collect()
    }

    fn sandbox_state_vars(
        &self,
        get: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    ) -> Vec<(&'static str, PathBuf)> {
        self.sandbox
            .state
            .iter()
            .filter_map(|s| match s {
                crate::StatePath::Var { var, .. } => s.resolve(get).map(|p| (*var, p)),
                _ => None,
            })
            .collect()
    }
}

impl fmt::Display for Description {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name)
    }
}
