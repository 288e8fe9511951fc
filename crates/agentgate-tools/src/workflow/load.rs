//! Loading a workflow: a file, YAML text, or a definition already parsed
//! (stored with a run, or submitted as JSON), through the same checks.
//!
//! The text is read strictly (`yaml.rs`: an unknown key or a wrong type is
//! refused with its line); then `check.rs` checks what the types cannot
//! say and `graph.rs` finds each step's dependencies and refuses a cycle.
//! A fault of the reading itself names its line, its column and its kind,
//! never the text found there ([`content_free`]): a server reads files its
//! client cannot, and `invalid workflow /etc/shadow, line 1: unknown field
//! `root:$6$...`` would hand the client their first line.
//! A fault of those names its place as a path of keys (`steps[2].when`),
//! which `yaml::locate` turns into a line when there is text. The result, a
//! [`Workflow`], is what the engine runs: the definition, the folder its
//! relative paths are relative to, and the steps indexed by id.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use agentgate_core::{MIB, read_text_file};
use serde_saphyr::Spanned;

use super::check::check;
use super::definition::{StepDef, WorkflowDef};
use super::graph::{dependencies, ids};
use crate::manifest::Fault;
use crate::yaml::{Node, YamlFault, from_str, locate, path_text};

/// The most a workflow file may hold.
pub const WORKFLOW_MAX_BYTES: u64 = MIB;

/// What names a definition that came without a file.
pub const NO_FILE: &str = "<request>";

/// The keys a step may have (the fields of [`StepDef`]).
pub const STEP_KEYS: [&str; 13] = [
    "id", "when", "needs", "retries", "backoff", "timeout", "tool", "args", "copy_in", "stdin",
    "agent", "parallel", "decision",
];

/// The keys that give a step its kind.
const KIND_KEYS: [&str; 4] = ["tool", "agent", "parallel", "decision"];

/// A workflow that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorkflowError {
    /// The file cannot be read.
    #[error("cannot read the workflow {}: {reason}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The workflow is not valid.
    #[error("invalid workflow {file}{}: {}", location(*line, *column), placed(at, message))]
    Invalid {
        /// The file, or `<request>` for a definition without one.
        file: String,
        /// The line at fault (1-based), when known.
        line: Option<u64>,
        /// The column at fault (1-based), when known.
        column: Option<u64>,
        /// The place as a path of keys (`steps[2].when`); empty for a
        /// fault of the YAML itself (an unknown key, a wrong type).
        at: String,
        /// What is wrong.
        message: String,
    },
}

fn location(line: Option<u64>, column: Option<u64>) -> String {
    YamlFault {
        line,
        column,
        message: String::new(),
    }
    .location()
}

fn placed(at: &str, message: &str) -> String {
    if at.is_empty() {
        message.to_owned()
    } else {
        format!("{at}: {message}")
    }
}

impl WorkflowError {
    /// The line at fault, when known.
    pub fn line(&self) -> Option<u64> {
        match self {
            WorkflowError::Invalid { line, .. } => *line,
            WorkflowError::Read { .. } => None,
        }
    }
}

/// A checked workflow: its definition, its folder, its steps by id.
#[derive(Debug, Clone)]
pub struct Workflow {
    /// The definition as written.
    pub def: WorkflowDef,
    /// The folder relative paths are relative to (absolute): the file's.
    pub base_dir: PathBuf,
    /// Every step, depth first.
    entries: Vec<Entry>,
    /// Id → index in `entries`.
    index: HashMap<String, usize>,
}

#[derive(Debug, Clone)]
struct Entry {
    id: String,
    /// The index in `steps`, then in each group's `steps`.
    loc: Vec<usize>,
    group: Option<String>,
    members: Vec<String>,
    deps: Vec<String>,
}

impl Workflow {
    /// Read and check the workflow file `path`; its folder is the base of
    /// its relative paths.
    pub fn load_file(path: &Path) -> Result<Workflow, WorkflowError> {
        let text = read_text_file(path, WORKFLOW_MAX_BYTES, "a workflow file").map_err(|e| {
            WorkflowError::Read {
                path: path.to_path_buf(),
                reason: e.to_string(),
            }
        })?;
        let dir = path.parent().unwrap_or(Path::new(""));
        Workflow::from_yaml(&text, &path.display().to_string(), dir)
    }

    /// Parse and check a workflow's YAML text; `file` names it in errors,
    /// `base_dir` is the base of its relative paths (made absolute).
    pub fn from_yaml(text: &str, file: &str, base_dir: &Path) -> Result<Workflow, WorkflowError> {
        let def: WorkflowDef = from_str(text).map_err(|fault| {
            let message = content_free(&fault.message);
            let fault = clearer_fault(text, YamlFault { message, ..fault });
            WorkflowError::Invalid {
                file: file.to_owned(),
                line: fault.line,
                column: fault.column,
                at: String::new(),
                message: fault.message,
            }
        })?;
        Workflow::checked(def, base_dir, file, Some(text))
    }

    /// Check a definition that came without text (stored with a run,
    /// submitted as JSON): the same checks, faults placed but without a
    /// line.
    pub fn from_def(def: WorkflowDef, base_dir: &Path) -> Result<Workflow, WorkflowError> {
        Workflow::checked(def, base_dir, NO_FILE, None)
    }

    fn checked(
        def: WorkflowDef,
        base_dir: &Path,
        file: &str,
        text: Option<&str>,
    ) -> Result<Workflow, WorkflowError> {
        let base_dir = absolute_dir(base_dir);
        let invalid = |fault: Fault| {
            let (line, column) = text.map_or((None, None), |t| locate(t, &fault.path));
            WorkflowError::Invalid {
                file: file.to_owned(),
                line,
                column,
                at: path_text(&fault.path),
                message: fault.message,
            }
        };
        let infos = check(&def, &base_dir).map_err(invalid)?;
        let deps = dependencies(&infos).map_err(invalid)?;
        let entries: Vec<Entry> = infos
            .iter()
            .zip(&deps)
            .map(|(info, deps)| Entry {
                id: info.id.clone(),
                loc: info.loc.clone(),
                group: info.group.and_then(|g| infos.get(g)).map(|g| g.id.clone()),
                members: ids(&infos, &info.members),
                deps: ids(&infos, deps),
            })
            .collect();
        let index = entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.id.clone(), i))
            .collect();
        Ok(Workflow {
            def,
            base_dir,
            entries,
            index,
        })
    }

    fn entry(&self, id: &str) -> Option<&Entry> {
        self.index.get(id).and_then(|i| self.entries.get(*i))
    }

    /// Every step id in file order, depth first (a group, then its
    /// members).
    pub fn ids(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.id.as_str()).collect()
    }

    /// The step `id`, at any depth.
    pub fn step(&self, id: &str) -> Option<&StepDef> {
        let (first, rest) = self.entry(id)?.loc.split_first()?;
        let mut step = self.def.steps.get(*first)?;
        for i in rest {
            step = step.parallel.as_ref()?.steps.get(*i)?;
        }
        Some(step)
    }

    /// The direct dependencies of `id` (deduplicated: the step before it,
    /// its `needs`, the steps it refers to, its group's), without the
    /// membership of a group; empty for an unknown id.
    pub fn deps(&self, id: &str) -> &[String] {
        self.entry(id).map_or(&[], |e| e.deps.as_slice())
    }

    /// The `parallel` group `id` is a member of.
    pub fn group_of(&self, id: &str) -> Option<&str> {
        self.entry(id)?.group.as_deref()
    }

    /// The members of the group `id` (empty for a step that is not one).
    pub fn members(&self, id: &str) -> &[String] {
        self.entry(id).map_or(&[], |e| e.members.as_slice())
    }
}

/// `dir` made absolute (the current folder for an empty one).
fn absolute_dir(dir: &Path) -> PathBuf {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())
}

/// serde's fault, or a clearer one for the same place: an unknown key of
/// a step says what a step's kinds are.
fn clearer_fault(text: &str, fault: YamlFault) -> YamlFault {
    let Ok(root) = from_str::<Spanned<Node>>(text) else {
        return fault;
    };
    let mut found = Vec::new();
    if let Some(steps) = entry(&root.value, "steps") {
        unknown_step_keys(steps, &mut found);
    }
    found
        .into_iter()
        .find(|f| f.line.is_some() && f.line == fault.line && f.column == fault.column)
        .unwrap_or(fault)
}

/// Every unknown key of the steps in `list` and of their groups' members
/// (the YAML reader limits the depth).
fn unknown_step_keys(list: &Spanned<Node>, found: &mut Vec<YamlFault>) {
    let Node::Seq(items) = &list.value else {
        return;
    };
    for item in items {
        let Node::Map(keys) = &item.value else {
            continue;
        };
        for (k, _) in keys {
            let name = k.value.0.as_str();
            if STEP_KEYS.contains(&name) {
                continue;
            }
            let others: Vec<&str> = STEP_KEYS
                .iter()
                .copied()
                .filter(|k| !KIND_KEYS.contains(k))
                .collect();
            let line = Some(k.referenced.line()).filter(|l| *l > 0);
            found.push(YamlFault {
                line,
                column: line.map(|_| k.referenced.column()),
                message: format!(
                    "unknown key: a step is one of {} (its other keys: {})",
                    KIND_KEYS.join(", "),
                    others.join(", ")
                ),
            });
        }
        if let Some(members) = entry(&item.value, "parallel").and_then(|p| entry(&p.value, "steps"))
        {
            unknown_step_keys(members, found);
        }
    }
}

/// The value of `key` in a map node.
fn entry<'a>(node: &'a Node, key: &str) -> Option<&'a Spanned<Node>> {
    match node {
        Node::Map(entries) => entries
            .iter()
            .find(|(k, _)| k.value.0 == key)
            .map(|(_, v)| v),
        _ => None,
    }
}

/// What the YAML reader says of a fault, without the text it quotes: the
/// kind of fault (`unknown field`, `invalid type: string`, `duplicate
/// mapping key`) and what was expected (which comes from the workflow's
/// types, never from the file), without the key or value found.
pub fn content_free(message: &str) -> String {
    /// What serde names the kind of a value by (`invalid type: string`).
    const KINDS: [&str; 11] = [
        "string",
        "integer",
        "floating point",
        "boolean",
        "character",
        "map",
        "sequence",
        "unit value",
        "null",
        "byte array",
        "enum",
    ];
    // The text before the first `, expected` outside quotes, its quoted
    // spans dropped; the rest as it is.
    let mut bare = String::new();
    let mut expected = "";
    let mut quote: Option<char> = None;
    for (i, c) in message.char_indices() {
        match (quote, c) {
            (None, _) if message[i..].starts_with(", expected") => {
                expected = &message[i..];
                break;
            }
            (None, '`' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, c) => bare.push(c),
            (Some(_), _) => {}
        }
    }
    // A missing or repeated field is named by the types, not by the file.
    if ["missing field", "duplicate field"]
        .iter()
        .any(|kind| message.starts_with(kind))
    {
        return message.to_owned();
    }
    let bare = bare.split_whitespace().collect::<Vec<_>>().join(" ");
    let head = match bare.split_once(": ") {
        Some((kind, rest)) if KINDS.contains(&rest) => format!("{kind}: {rest}"),
        Some((kind, _)) => kind.to_owned(),
        None => bare,
    };
    format!("{head}{expected}")
}
