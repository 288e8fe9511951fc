//! Why a prompt could not be assembled.

use std::path::PathBuf;

/// Which input a file was read as; names the flag in errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileRole {
    /// `--agent-file`.
    AgentFile,
    /// `--context`, or `files` in the JSON task input.
    ContextFile,
    /// The CONTEXT.md of `--context-dir`.
    ContextDir,
    /// The CONTEXT.md found in the working directory.
    WorkingDirContext,
    /// A file of an agent's `instructions:`.
    Instructions,
}

impl FileRole {
    /// What the file is, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            FileRole::AgentFile => "agent file",
            FileRole::ContextFile => "context file",
            FileRole::ContextDir => "CONTEXT.md of --context-dir",
            FileRole::WorkingDirContext => "CONTEXT.md of the working directory",
            FileRole::Instructions => "instructions file",
        }
    }

    /// The field of a run request the file comes from: `agent_file`,
    /// `context` (a task input's `files` are read in the same role: the
    /// planner names those `task`), `context_dir`, or `cwd` for the
    /// CONTEXT.md found in the working directory.
    pub fn field(self) -> &'static str {
        match self {
            FileRole::AgentFile => "agent_file",
            FileRole::ContextFile => "context",
            FileRole::ContextDir => "context_dir",
            FileRole::WorkingDirContext => "cwd",
            FileRole::Instructions => "agents",
        }
    }

    /// What the user can do about a file that cannot be used.
    pub fn fix(self) -> &'static str {
        match self {
            FileRole::AgentFile => "check the path given to --agent-file",
            FileRole::ContextFile => {
                "check the path given to --context or in the task input's `files`"
            }
            FileRole::ContextDir => "check the folder given to --context-dir",
            FileRole::WorkingDirContext => "fix the file, or leave it out with --skip-context-file",
            FileRole::Instructions => {
                "check the paths of the agent's `instructions:` in the config"
            }
        }
    }
}

/// A prompt that cannot be assembled.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    /// Nothing to do.
    #[error(
        "failed to assemble the prompt: the task is empty (give the prompt as an argument, on stdin, or as `prompt` in JSON task input)"
    )]
    EmptyTask,
    /// `--persona` without `--agent-file`.
    #[error(
        "failed to select the persona `{persona}`: there is no agent file to select it from (add --agent-file FILE, or drop --persona)"
    )]
    PersonaWithoutAgentFile {
        /// The persona asked for.
        persona: String,
    },
    /// `--persona ""`.
    #[error(
        "failed to select a persona: the persona id is empty (give a heading prefix, or drop --persona)"
    )]
    EmptyPersona,
    /// A file could not be read.
    #[error("failed to read the {} {}: {source} ({})", role.describe(), path.display(), role.fix())]
    Read {
        /// What the file was for.
        role: FileRole,
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file is a folder.
    #[error("failed to read the {} {}: it is a folder ({})", role.describe(), path.display(), folder_hint(*role))]
    IsFolder {
        /// What the file was for.
        role: FileRole,
        /// The folder.
        path: PathBuf,
    },
    /// A file is not UTF-8 text.
    #[error(
        "failed to read the {} {}: it is not UTF-8 text (invalid byte at offset {offset}; convert it to UTF-8, or leave it out)",
        role.describe(),
        path.display()
    )]
    NotUtf8 {
        /// What the file was for.
        role: FileRole,
        /// The file.
        path: PathBuf,
        /// The byte offset of the first invalid byte.
        offset: usize,
    },
    /// `--context-dir` has no CONTEXT.md.
    #[error(
        "failed to find CONTEXT.md in the --context-dir {}: {detail} (create it, or drop --context-dir)",
        dir.display()
    )]
    NoContextFile {
        /// The folder given.
        dir: PathBuf,
        /// `no such file`, `not a folder`, ...
        detail: String,
    },
    /// No heading of the agent file starts with the persona id.
    #[error(
        "failed to select the persona `{persona}` in the agent file {}: no heading starts with it (available: {})",
        path.display(),
        list(available)
    )]
    PersonaNotFound {
        /// The persona asked for.
        persona: String,
        /// The agent file.
        path: PathBuf,
        /// Its headings, as `## Text (line N)`.
        available: Vec<String>,
    },
    /// Several headings start with the persona id, none equals it.
    #[error(
        "failed to select the persona `{persona}` in the agent file {}: it matches several headings: {} (give a longer prefix)",
        path.display(),
        list(matches)
    )]
    PersonaAmbiguous {
        /// The persona asked for.
        persona: String,
        /// The agent file.
        path: PathBuf,
        /// The matching headings, as `## Text (line N)`.
        matches: Vec<String>,
    },
    /// One file alone is over the prompt size limit.
    #[error(
        "failed to read the {} {}: it is {bytes} bytes, over the prompt limit of {limit} bytes (--prompt-max-bytes; bound context with --context-max, or raise the limit)",
        role.describe(),
        path.display()
    )]
    FileTooLarge {
        /// What the file was for.
        role: FileRole,
        /// The file.
        path: PathBuf,
        /// Its size.
        bytes: u64,
        /// `max_bytes`.
        limit: usize,
    },
    /// The assembled prompt is over `max_bytes`.
    #[error(
        "failed to assemble the prompt: it is {bytes} bytes, over the limit of {limit} bytes (--prompt-max-bytes; shorten the task or the context, bound it with --context-max, or raise the limit)"
    )]
    TooLarge {
        /// The fresh prompt's size.
        bytes: usize,
        /// `max_bytes`.
        limit: usize,
    },
    /// JSON task input that does not follow the task input format.
    #[error(
        "failed to read the JSON task input: {0} (expected an object with `prompt` and optionally `context`, `persona`, `files`; see docs/prompt.md)"
    )]
    TaskInput(String),
}

impl PromptError {
    /// The file it is about, if any.
    pub fn path(&self) -> Option<&std::path::Path> {
        match self {
            PromptError::Read { path, .. }
            | PromptError::IsFolder { path, .. }
            | PromptError::NotUtf8 { path, .. }
            | PromptError::FileTooLarge { path, .. }
            | PromptError::PersonaNotFound { path, .. }
            | PromptError::PersonaAmbiguous { path, .. } => Some(path),
            PromptError::NoContextFile { dir, .. } => Some(dir),
            _ => None,
        }
    }

    /// The field of a run request this error is about (as the planner's
    /// errors name theirs): the file's role for a file, the
    /// persona for a persona, `task` for the task itself (empty, not in
    /// the task input format, or too large with its context).
    pub fn field(&self) -> &'static str {
        match self {
            PromptError::EmptyTask | PromptError::TaskInput(_) => "task",
            // The limit the assembled prompt (task, context, system prompt,
            // instructions) passed: what the request can change to be taken.
            PromptError::TooLarge { .. } => "prompt_max_bytes",
            PromptError::PersonaWithoutAgentFile { .. }
            | PromptError::EmptyPersona
            | PromptError::PersonaNotFound { .. }
            | PromptError::PersonaAmbiguous { .. } => "persona",
            PromptError::Read { role, .. }
            | PromptError::IsFolder { role, .. }
            | PromptError::NotUtf8 { role, .. }
            | PromptError::FileTooLarge { role, .. } => role.field(),
            PromptError::NoContextFile { .. } => "context_dir",
        }
    }
}

fn folder_hint(role: FileRole) -> &'static str {
    match role {
        FileRole::ContextFile => "give a file, or use --context-dir for a folder with a CONTEXT.md",
        _ => role.fix(),
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}
