//! Skills: the `SKILL.md` folders a CLI reads (the agentskills.io format:
//! YAML front matter with `name` and `description`, then Markdown), as
//! data in each provider's [`Description`](crate::Description)
//! ([`SkillFacts`]), and agentgate's own scan of those folders.
//!
//! - `parse.rs` reads one `SKILL.md`: a bad file (no front matter, bad
//!   YAML, too large, unreadable) is a [`Skill`] with an `error`, never a
//!   failure of the scan; a missing description is a warning.
//! - `walk.rs` finds the folders: the project ones from the working
//!   directory up to the repository root (the nearest folder first), then
//!   the user ones (an environment variable such as `CLAUDE_CONFIG_DIR` or
//!   `CODEX_HOME` moves them, as the CLI honours it). The first skill of a
//!   name wins; later ones are listed as shadowed.
//! - `invoke.rs` writes the text that invokes a skill the provider's way
//!   ([`SkillInvoke`]).
//!
//! The scan is offline and reads only these folders: it does not see a
//! CLI's built-in or plugin skills (Claude's `plugin:skill`).

mod invoke;
mod parse;
#[cfg(test)]
mod tests;
mod walk;

use std::path::PathBuf;

use serde::Serialize;

pub use invoke::{SkillInvocation, invocation};
pub use parse::{SKILL_FILE, SKILL_FILE_MAX_BYTES, SkillDoc, read_skill};
pub use walk::{SkillScan, scan};

/// Where a CLI finds skills and how it invokes one.
#[derive(Debug, Clone, Copy)]
pub struct SkillFacts {
    /// Folders relative to the working directory and each of its parents
    /// up to the repository root (`.claude/skills`), in the CLI's order of
    /// precedence.
    pub project_dirs: &'static [&'static str],
    /// The user's folders, in order of precedence.
    pub user_dirs: &'static [UserDir],
    /// How a run invokes a skill.
    pub invoke: SkillInvoke,
    /// The CLI's own cheap lister, if it has one (`agentgate skills
    /// --native`).
    pub native: Option<NativeLister>,
}

/// A CLI's own listing of its skills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NativeLister {
    /// `codex app-server`: `initialize`, then `skills/list {cwds}`.
    CodexAppServer,
}

/// A user folder of skills: `$VAR/under_var` when `var` is set, else
/// `$HOME/under_home`.
#[derive(Debug, Clone, Copy)]
pub struct UserDir {
    /// The variable that moves the folder (`CLAUDE_CONFIG_DIR`).
    pub var: Option<&'static str>,
    /// The folder under `$VAR`.
    pub under_var: &'static str,
    /// The folder under `$HOME` when `var` is unset.
    pub under_home: &'static str,
    /// `user`, or `system` for skills the CLI installs itself (Codex's
    /// `.system`).
    pub scope: SkillScope,
}

impl UserDir {
    /// A folder under `$HOME` that no variable moves.
    pub const fn home(under_home: &'static str) -> UserDir {
        UserDir {
            var: None,
            under_var: "",
            under_home,
            scope: SkillScope::User,
        }
    }

    /// `$var/under_var`, else `$HOME/under_home`.
    pub const fn moved_by(
        var: &'static str,
        under_var: &'static str,
        under_home: &'static str,
    ) -> UserDir {
        UserDir {
            var: Some(var),
            under_var,
            under_home,
            scope: SkillScope::User,
        }
    }
}

/// The skills of a CLI agentgate knows nothing particular of (one a config
/// file describes): the cross-CLI `.agents/skills/` folders, invoked by a
/// prompt that names the skill.
pub static GENERIC_SKILLS: SkillFacts = SkillFacts {
    project_dirs: &[".agents/skills"],
    user_dirs: &[UserDir::home(".agents/skills")],
    invoke: SkillInvoke::Prompt,
    native: None,
};

/// How a provider invokes a skill in a headless run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkillInvoke {
    /// The prompt starts `/NAME INPUT` (Claude Code, Qwen Code).
    Slash,
    /// The prompt starts `$NAME` and carries the input (Codex).
    Mention,
    /// The CLI's flag names the command (`--command NAME`, opencode); the
    /// prompt is the input.
    CommandFlag(&'static str),
    /// A prompt that names the skill, gives its path and body, and carries
    /// the input (CLIs with no headless invocation of their own).
    Prompt,
}

impl SkillInvoke {
    /// `native` for the CLI's own way, `prompt` for the written prompt.
    pub fn as_str(self) -> &'static str {
        match self {
            SkillInvoke::Prompt => "prompt",
            _ => "native",
        }
    }
}

/// Where a skill was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum SkillScope {
    /// A folder of the working directory or one of its parents up to the
    /// repository root.
    Project,
    /// A folder of the user's.
    User,
    /// A folder the CLI fills itself.
    System,
}

/// One skill a scan found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Skill {
    /// Its name: the front matter's `name`, else its folder's.
    pub name: String,
    /// The front matter's `description`.
    pub description: Option<String>,
    /// Where it was found.
    pub scope: SkillScope,
    /// Its `SKILL.md`.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub path: PathBuf,
    /// Why the file cannot be used (no front matter, bad YAML, unreadable);
    /// `null` for a usable skill.
    pub error: Option<String>,
    /// What is odd but usable (no description: some CLIs skip the skill).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// An earlier skill of the same name wins over this one.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub shadowed: bool,
}
