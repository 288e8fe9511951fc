//! What a prompt is made of, and what assembling it yields: the types the
//! assembler (`mod.rs`) and its parts (`context.rs`, `task.rs`) share.

use std::path::PathBuf;

use serde::Serialize;

/// Appended as the last paragraph of every prompt unless turned off
/// (`--no-unattended-instruction`): nobody answers an agent run by
/// agentgate.
pub const UNATTENDED_INSTRUCTION: &str = "You are running unattended: no one will answer questions. Do not ask for user input or confirmation; make reasonable assumptions, state them, and finish the task.";

/// The default of [`PromptParts::max_bytes`] (`--prompt-max-bytes`): 1 MiB.
pub const DEFAULT_MAX_BYTES: usize = 1024 * 1024;

/// The default of [`PromptParts::warn_bytes`] (`--prompt-warn-bytes`):
/// 256 KiB, about 64k tokens.
pub const DEFAULT_WARN_BYTES: usize = 256 * 1024;

/// What a prompt is made of. Relative paths are relative to `cwd`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptParts {
    /// What to do.
    pub task: String,
    /// `--agent-file`: Markdown with persona blocks.
    pub agent_file: Option<PathBuf>,
    /// `--persona`: a prefix of one of the agent file's headings.
    pub persona: Option<String>,
    /// `--context` (repeatable), then the task input's `files`.
    pub context_files: Vec<PathBuf>,
    /// `--context-dir`: a folder that must hold a CONTEXT.md.
    pub context_dir: Option<PathBuf>,
    /// The run's working directory: where a CONTEXT.md is looked for, and
    /// what relative paths are relative to.
    pub cwd: PathBuf,
    /// `--context-max`: at most this many bytes of context text in all.
    pub context_max: Option<usize>,
    /// `--skip-context-file`: do not include the working directory's
    /// CONTEXT.md.
    pub skip_context_file: bool,
    /// Whether to end with [`UNATTENDED_INSTRUCTION`].
    pub unattended_instruction: bool,
    /// `--prompt-max-bytes`: a longer fresh prompt is an error; 0 = no limit.
    pub max_bytes: usize,
    /// `--prompt-warn-bytes`: a longer fresh prompt gets a warning; 0 = none.
    pub warn_bytes: usize,
    /// The task input's `context`: text sent as the last context piece.
    pub task_context: Option<String>,
    /// The name of the file the task came from (a watched note): the task
    /// is sent under `--- task: NAME ---`.
    pub task_file_name: Option<String>,
    /// Standing instruction files, sent first, in order (an agent's
    /// `instructions:`).
    pub instructions: Vec<InstructionFile>,
    /// The output schema's JSON text: sent after the task with the
    /// JSON-only instruction ([`schema_instruction`]).
    pub output_schema: Option<String>,
}

/// One standing instruction file of a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstructionFile {
    /// The file (relative: to the run's working directory).
    pub path: PathBuf,
    /// Whether a missing file is an error (else it is left out).
    pub required: bool,
}

/// The paragraph that asks for a JSON-only answer matching `schema` (the
/// schema's JSON text), sent after the task when a run has an output
/// schema, to every CLI.
pub fn schema_instruction(schema: &str) -> String {
    format!(
        "--- output schema ---\n{SCHEMA_INSTRUCTION}\n{}",
        schema.trim()
    )
}

/// The words of [`schema_instruction`] before the schema.
pub const SCHEMA_INSTRUCTION: &str = "Your final answer must be exactly one JSON value that validates against the JSON Schema below, and nothing else: no text before or after it, no Markdown code fences.";

impl Default for PromptParts {
    fn default() -> Self {
        PromptParts {
            task: String::new(),
            agent_file: None,
            persona: None,
            context_files: Vec::new(),
            context_dir: None,
            cwd: PathBuf::new(),
            context_max: None,
            skip_context_file: false,
            unattended_instruction: true,
            max_bytes: DEFAULT_MAX_BYTES,
            warn_bytes: DEFAULT_WARN_BYTES,
            task_context: None,
            task_file_name: None,
            instructions: Vec::new(),
            output_schema: None,
        }
    }
}

impl PromptParts {
    /// `task` run in `cwd`, with the default limits and the unattended
    /// instruction.
    pub fn new(task: impl Into<String>, cwd: impl Into<PathBuf>) -> Self {
        PromptParts {
            task: task.into(),
            cwd: cwd.into(),
            ..PromptParts::default()
        }
    }
}

/// What a piece of the prompt is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PieceKind {
    /// The agent file, or its preamble when a persona is selected.
    AgentFile,
    /// The selected persona block.
    Persona,
    /// A standing instruction file (an agent's `instructions:`).
    Instructions,
    /// A context file or the task input's context.
    Context,
    /// The task.
    Task,
    /// [`UNATTENDED_INSTRUCTION`].
    Instruction,
    /// The output schema with the JSON-only instruction.
    OutputSchema,
}

/// One piece of an assembled prompt, for `--dry-run`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PromptPiece {
    /// What it is.
    pub kind: PieceKind,
    /// The file it came from.
    pub source: Option<PathBuf>,
    /// The persona's heading, a context piece's name (the path as given,
    /// or `task input`), `preamble` for an agent file's preamble.
    pub label: Option<String>,
    /// The bytes of its text in the prompt (headers not counted).
    pub bytes: usize,
    /// The bytes of the whole input (the file's size for a cut file).
    pub total_bytes: u64,
    /// Whether `--context-max` cut it (or left it out: `bytes` is 0).
    pub truncated: bool,
}

/// A prompt ready to send.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AssembledPrompt {
    /// The prompt of a new session.
    pub fresh: String,
    /// The prompt of a resumed session: no agent file, persona or
    /// CONTEXT.md.
    pub resumed: String,
    /// Things the user should know (truncation, size), one line each.
    pub warnings: Vec<String>,
    /// The selected persona's heading text.
    pub persona: Option<String>,
    /// What went into `fresh`, in order.
    pub parts: Vec<PromptPiece>,
    /// What went into `resumed`, in order.
    pub resumed_parts: Vec<PromptPiece>,
}

impl AssembledPrompt {
    /// The estimated tokens of the fresh prompt (see [`estimate_tokens`]).
    pub fn estimated_tokens(&self) -> u64 {
        estimate_tokens(&self.fresh)
    }
}

/// Estimated tokens of `text`: a character count / 4, as the envelope's
/// `estimated_output_tokens`.
pub fn estimate_tokens(text: &str) -> u64 {
    agentgate_protocol::estimate_output_tokens(text)
}
