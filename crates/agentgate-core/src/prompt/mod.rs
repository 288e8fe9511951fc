//! Prompt assembly: agent files, personas, context files, task input.
//!
//! [`assemble`] builds the text sent to the agent from [`PromptParts`], in
//! this order, sections separated by a blank line:
//!
//! 0. the standing instruction files (an agent's `instructions:`, such as
//!    AGENTS.md then GARDENER.md), after [`INSTRUCTIONS_LEAD`], each under
//!    an `--- instructions: PATH ---` line (a missing optional file is left
//!    out);
//! 1. the agent file (`--agent-file`): all of it, or with `--persona` its
//!    preamble (the text before the first heading) and the selected persona
//!    block (a Markdown heading of level 1 to 3 and what follows it up to
//!    the next heading of the same or a higher level);
//! 2. the context: the CONTEXT.md (of `--context-dir`, else of the working
//!    directory unless `--skip-context-file`), the `--context` files, the
//!    task input's `files`, then its `context`, each under a
//!    `--- context: NAME ---` line, bounded together by `--context-max`;
//! 3. the task (under a `--- task ---` line when something precedes it;
//!    under `--- task: NAME ---`, always, when the task came from a file
//!    named NAME);
//! 4. the output schema with the JSON-only instruction
//!    ([`schema_instruction`]), when the run has one: every CLI gets it,
//!    not only the ones that take a schema natively;
//! 5. [`UNATTENDED_INSTRUCTION`], unless turned off.
//!
//! A resumed session already has the standing instructions: its prompt
//! ([`AssembledPrompt::resumed`]) leaves out the instruction files, the
//! agent file, the persona and the CONTEXT.md, and keeps the per-run
//! context, the task, the schema and the instruction. `docs/prompt.md` is the user's guide.

mod agent_file;
mod context;
mod error;
mod parts;
mod read;
mod task;

pub use context::{CONTEXT_FILE, truncation_marker};
pub use error::{FileRole, PromptError};
pub use parts::{
    AssembledPrompt, DEFAULT_MAX_BYTES, DEFAULT_WARN_BYTES, InstructionFile, PieceKind,
    PromptParts, PromptPiece, SCHEMA_INSTRUCTION, UNATTENDED_INSTRUCTION, estimate_tokens,
    schema_instruction,
};
pub use task::{FILE_NAME_MAX, TASK_INPUT_FIELDS, TaskInput, check_file_name, task_from_stdin};

/// The line sent before the standing instruction files.
pub const INSTRUCTIONS_LEAD: &str = "Follow the instructions below exactly.";

use context::{Piece, resolve};
use read::read_text;

/// Build the prompt `p` describes; reads its files.
pub fn assemble(p: &PromptParts) -> Result<AssembledPrompt, PromptError> {
    let task = tidy(&p.task);
    if task.trim().is_empty() {
        return Err(PromptError::EmptyTask);
    }
    let (mut head, mut head_parts) = instruction_sections(p)?;
    let (agent_head, agent_parts, persona) = agent_sections(p)?;
    head.extend(agent_head);
    head_parts.extend(agent_parts);
    let (pieces, mut warnings) = context::gather(p)?;
    let all: Vec<&Piece> = pieces.iter().collect();
    let per_run: Vec<&Piece> = pieces.iter().filter(|c| !c.standing).collect();
    let fresh_context = context::build(&all, p.context_max);
    let resumed_context = context::build(&per_run, p.context_max);
    warnings.extend(fresh_context.warnings);

    let tail = Tail {
        task,
        file_name: p.task_file_name.as_deref(),
        schema: p.output_schema.as_deref().map(schema_instruction),
        instruction: p.unattended_instruction,
    };
    let mut sections = head;
    sections.extend(fresh_context.sections);
    let fresh = tail.compose(sections);
    let resumed = tail.compose(resumed_context.sections);
    let tail = tail.parts();

    if p.max_bytes > 0 && fresh.len() > p.max_bytes {
        return Err(PromptError::TooLarge {
            bytes: fresh.len(),
            limit: p.max_bytes,
        });
    }
    if p.warn_bytes > 0 && fresh.len() > p.warn_bytes {
        warnings.push(format!(
            "the prompt is {} bytes (about {} tokens), over the warning threshold of {} bytes (--prompt-warn-bytes)",
            fresh.len(),
            estimate_tokens(&fresh),
            p.warn_bytes
        ));
    }
    let mut parts = head_parts;
    parts.extend(fresh_context.parts);
    parts.extend(tail.iter().cloned());
    let mut resumed_parts = resumed_context.parts;
    resumed_parts.extend(tail);
    Ok(AssembledPrompt {
        fresh,
        resumed,
        warnings,
        persona,
        parts,
        resumed_parts,
    })
}

type AgentSections = (Vec<String>, Vec<PromptPiece>, Option<String>);

/// The agent file's sections and pieces, and the persona's heading.
fn agent_sections(p: &PromptParts) -> Result<AgentSections, PromptError> {
    let Some(file) = &p.agent_file else {
        return match &p.persona {
            Some(id) => Err(PromptError::PersonaWithoutAgentFile {
                persona: id.clone(),
            }),
            None => Ok((Vec::new(), Vec::new(), None)),
        };
    };
    let path = resolve(&p.cwd, file);
    let read = read_text(
        &path,
        FileRole::AgentFile,
        (p.max_bytes > 0).then_some(p.max_bytes),
    )?;
    if !read.complete {
        return Err(PromptError::FileTooLarge {
            role: FileRole::AgentFile,
            path,
            bytes: read.size,
            limit: p.max_bytes,
        });
    }
    let piece = |kind, label: Option<&str>, text: &str| PromptPiece {
        kind,
        source: Some(path.clone()),
        label: label.map(str::to_owned),
        bytes: text.len(),
        total_bytes: read.size,
        truncated: false,
    };
    let Some(id) = &p.persona else {
        let text = read.text.trim();
        let sections = if text.is_empty() {
            Vec::new()
        } else {
            vec![text.to_owned()]
        };
        return Ok((
            sections,
            vec![piece(PieceKind::AgentFile, None, text)],
            None,
        ));
    };
    let s = agent_file::select(&read.text, id, &path)?;
    let mut sections = Vec::new();
    let mut parts = Vec::new();
    if !s.preamble.is_empty() {
        parts.push(piece(PieceKind::AgentFile, Some("preamble"), &s.preamble));
        sections.push(s.preamble);
    }
    parts.push(piece(PieceKind::Persona, Some(&s.heading), &s.block));
    sections.push(s.block);
    Ok((sections, parts, Some(s.heading)))
}

/// The standing instruction files' sections (after [`INSTRUCTIONS_LEAD`])
/// and pieces; a missing optional file is left out.
fn instruction_sections(p: &PromptParts) -> Result<(Vec<String>, Vec<PromptPiece>), PromptError> {
    let mut sections = Vec::new();
    let mut parts = Vec::new();
    let limit = (p.max_bytes > 0).then_some(p.max_bytes);
    for file in &p.instructions {
        let path = resolve(&p.cwd, &file.path);
        if !file.required && !path.exists() {
            continue;
        }
        let read = read_text(&path, FileRole::Instructions, limit)?;
        if !read.complete {
            return Err(PromptError::FileTooLarge {
                role: FileRole::Instructions,
                path,
                bytes: read.size,
                limit: p.max_bytes,
            });
        }
        let text = read.text.trim();
        if text.is_empty() {
            continue;
        }
        sections.push(format!("--- instructions: {} ---\n{text}", path.display()));
        parts.push(PromptPiece {
            kind: PieceKind::Instructions,
            label: Some(path.display().to_string()),
            source: Some(path),
            bytes: text.len(),
            total_bytes: read.size,
            truncated: false,
        });
    }
    if !sections.is_empty() {
        sections.insert(0, INSTRUCTIONS_LEAD.to_owned());
    }
    Ok((sections, parts))
}

/// What follows the standing parts and the context: the task, the output
/// schema, the unattended instruction.
struct Tail<'a> {
    task: &'a str,
    file_name: Option<&'a str>,
    schema: Option<String>,
    instruction: bool,
}

impl Tail<'_> {
    /// `sections`, the task (with a header when something precedes it or it
    /// came from a named file), the schema and the instruction, a blank
    /// line apart.
    fn compose(&self, mut sections: Vec<String>) -> String {
        let task = self.task;
        match self.file_name {
            Some(name) => sections.push(format!("--- task: {name} ---\n{task}")),
            None if sections.is_empty() => sections.push(task.to_owned()),
            None => sections.push(format!("--- task ---\n{task}")),
        }
        if let Some(schema) = &self.schema {
            sections.push(schema.clone());
        }
        if self.instruction {
            sections.push(UNATTENDED_INSTRUCTION.to_owned());
        }
        sections.join("\n\n")
    }

    fn parts(&self) -> Vec<PromptPiece> {
        let piece = |kind, label: Option<&str>, bytes: usize| PromptPiece {
            kind,
            source: None,
            label: label.map(str::to_owned),
            bytes,
            total_bytes: u64::try_from(bytes).unwrap_or(u64::MAX),
            truncated: false,
        };
        let mut parts = vec![piece(PieceKind::Task, self.file_name, self.task.len())];
        if let Some(schema) = &self.schema {
            parts.push(piece(PieceKind::OutputSchema, None, schema.len()));
        }
        if self.instruction {
            parts.push(piece(
                PieceKind::Instruction,
                None,
                UNATTENDED_INSTRUCTION.len(),
            ));
        }
        parts
    }
}

/// `task` without trailing white space and leading blank lines (the first
/// line keeps its indentation).
fn tidy(task: &str) -> &str {
    let task = task.trim_end();
    let first = task
        .find(|c: char| !c.is_whitespace())
        .unwrap_or(task.len());
    let line_start = task[..first].rfind('\n').map_or(0, |i| i + 1);
    &task[line_start..]
}

#[cfg(test)]
mod tests;
