//! References and templates: the `${...}` a workflow's strings hold.
//!
//! A [`Template`] is a string cut into literal text and [`Reference`]s,
//! parsed once (so a bad reference is a load-time fault with its line, in
//! `load.rs`) and rendered later against a [`Scope`], the values the engine
//! has gathered so far. The syntax:
//!
//! - `${ROOT.path}`: ROOT is `input` (the workflow's input JSON),
//!   `workflow` (`run_id`, `name`), `steps.ID.FIELD` (FIELD one of
//!   `status`, `result`, `output`, `run_id`, `action`), `action` (a
//!   decision's agent prompt only: the tool's `{action, context}`) or
//!   `answer` (a decision's `args` only: `{choice, reason}`);
//! - the path: `.name` (a key), `.N` or `[N]` (a list index);
//! - `$${` is a literal `${`.
//!
//! Where each root may appear is checked by `load.rs`, not here.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

/// One step of a path into a JSON value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Segment {
    /// An object's key (`.name`).
    Key(String),
    /// A list's index (`.N` or `[N]`).
    Index(usize),
}

/// A field of a step's record in the [`Scope`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StepField {
    /// `succeeded`, `failed`, `skipped`, ...
    Status,
    /// The step's whole result (a tool's result envelope, an agent's).
    Result,
    /// The step's output (an agent's structured output, a tool's `result`
    /// data, a decision's answer).
    Output,
    /// The id of the step's run in the store.
    RunId,
    /// The action request a tool step ended with (`{action, context}`).
    Action,
}

impl StepField {
    /// Every field, in the order messages list them.
    pub const ALL: [StepField; 5] = [
        StepField::Status,
        StepField::Result,
        StepField::Output,
        StepField::RunId,
        StepField::Action,
    ];

    /// The field's name, e.g. `"run_id"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            StepField::Status => "status",
            StepField::Result => "result",
            StepField::Output => "output",
            StepField::RunId => "run_id",
            StepField::Action => "action",
        }
    }

    /// The field named `name`.
    pub fn from_name(name: &str) -> Option<StepField> {
        StepField::ALL.into_iter().find(|f| f.as_str() == name)
    }
}

/// What a reference starts from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RefRoot {
    /// `${input...}`: the workflow's input JSON.
    Input,
    /// `${workflow...}`: `run_id` and `name`.
    Workflow,
    /// `${steps.ID.FIELD...}`: a step's record.
    Step {
        /// The step's id.
        id: String,
        /// The field of its record.
        field: StepField,
    },
    /// `${action...}`: the action request a decision answers.
    Action,
    /// `${answer...}`: a decision's answer (`choice`, `reason`).
    Answer,
}

/// The fields `${workflow.FIELD}` may name.
pub const WORKFLOW_FIELDS: [&str; 2] = ["run_id", "name"];

/// One `${...}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reference {
    /// Where it starts.
    pub root: RefRoot,
    /// The path below the root (below the field for a step).
    pub path: Vec<Segment>,
    /// The reference as written, without `${` and `}`.
    pub text: String,
}

impl Reference {
    /// Parse the inside of `${...}` (surrounding spaces allowed).
    pub fn parse(text: &str) -> Result<Reference, String> {
        let inner = text.trim();
        if inner.is_empty() {
            return Err("an empty reference `${}`: write `${input...}`, `${workflow...}` or `${steps.ID.FIELD...}`".into());
        }
        let head_len = inner.find(['.', '[']).unwrap_or(inner.len());
        let (head, rest) = inner.split_at(head_len);
        let mut path = parse_path(rest).map_err(|e| format!("`${{{text}}}`: {e}"))?;
        let root = match head {
            "input" => RefRoot::Input,
            "workflow" => {
                if let Some(first) = path.first()
                    && !matches!(first, Segment::Key(k) if WORKFLOW_FIELDS.contains(&k.as_str()))
                {
                    return Err(format!(
                        "`${{{text}}}`: a workflow has the fields {}",
                        WORKFLOW_FIELDS.join(" and ")
                    ));
                }
                RefRoot::Workflow
            }
            "action" => RefRoot::Action,
            "answer" => RefRoot::Answer,
            "steps" => {
                let fields: Vec<&str> = StepField::ALL.iter().map(|f| f.as_str()).collect();
                let needs_field = || {
                    format!(
                        "`${{{text}}}`: a step reference is `${{steps.ID.FIELD}}`, FIELD one of {}",
                        fields.join(", ")
                    )
                };
                let mut rest = path.drain(..);
                let id = match rest.next() {
                    Some(Segment::Key(id)) => id,
                    Some(Segment::Index(n)) => n.to_string(),
                    None => return Err(needs_field()),
                };
                let field = match rest.next() {
                    Some(Segment::Key(name)) => StepField::from_name(&name).ok_or_else(|| {
                        format!(
                            "`${{{text}}}`: unknown step field `{name}` (a step has {})",
                            fields.join(", ")
                        )
                    })?,
                    Some(Segment::Index(n)) => {
                        return Err(format!(
                            "`${{{text}}}`: unknown step field `{n}` (a step has {})",
                            fields.join(", ")
                        ));
                    }
                    None => return Err(needs_field()),
                };
                let path = rest.collect();
                return Ok(Reference {
                    root: RefRoot::Step { id, field },
                    path,
                    text: text.to_owned(),
                });
            }
            other => {
                return Err(format!(
                    "`${{{text}}}`: unknown root `{other}` (a reference starts with input, workflow, steps, action or answer)"
                ));
            }
        };
        Ok(Reference {
            root,
            path,
            text: text.to_owned(),
        })
    }

    /// The step this reference names, if it names one.
    pub fn step(&self) -> Option<&str> {
        match &self.root {
            RefRoot::Step { id, .. } => Some(id),
            _ => None,
        }
    }
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "${{{}}}", self.text)
    }
}

/// `.a.0[1].b` → its segments.
fn parse_path(mut rest: &str) -> Result<Vec<Segment>, String> {
    let mut out = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let len = after.find(['.', '[']).unwrap_or(after.len());
            let (name, tail) = after.split_at(len);
            if name.is_empty() {
                return Err("an empty name after `.`".into());
            }
            if name.contains([']', ' ', '\t', '\n', '\r']) {
                return Err(format!("`{name}` is not a name"));
            }
            out.push(match name.bytes().all(|b| b.is_ascii_digit()) {
                true => Segment::Index(index(name)?),
                false => Segment::Key(name.to_owned()),
            });
            rest = tail;
        } else if let Some(after) = rest.strip_prefix('[') {
            let Some(end) = after.find(']') else {
                return Err("a `[` without its `]`".into());
            };
            let n = &after[..end];
            if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("`[{n}]` is not a list index (`[0]`, `[1]`, ...)"));
            }
            out.push(Segment::Index(index(n)?));
            rest = &after[end + 1..];
        } else {
            return Err(format!("`{rest}`: expected `.name`, `.N` or `[N]`"));
        }
    }
    Ok(out)
}

fn index(digits: &str) -> Result<usize, String> {
    digits
        .parse()
        .map_err(|_| format!("`{digits}` is too large for a list index"))
}

/// A piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Ref(Reference),
}

/// A string with `${...}` references, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    parts: Vec<Part>,
}

/// A reference with no value in the scope (a missing key, an index past
/// the end, a step that has not run).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`${{{reference}}}` has no value")]
pub struct MissingValue {
    /// The reference as written, without `${` and `}`.
    pub reference: String,
}

impl Template {
    /// Parse `text`: literal text and `${...}` references; `$${` is a
    /// literal `${`.
    pub fn parse(text: &str) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        while let Some(at) = rest.find("${") {
            if rest[..at].ends_with('$') {
                // `$${`: a literal `${`.
                literal.push_str(&rest[..at - 1]);
                literal.push_str("${");
                rest = &rest[at + 2..];
                continue;
            }
            literal.push_str(&rest[..at]);
            let after = &rest[at + 2..];
            let Some(end) = after.find('}') else {
                return Err(format!(
                    "an unclosed `${{` in `{text}` (a literal `${{` is written `$${{`)"
                ));
            };
            let inner = &after[..end];
            if inner.contains("${") {
                return Err(format!("an unclosed `${{` in `{text}`"));
            }
            let reference = Reference::parse(inner)?;
            if !literal.is_empty() {
                parts.push(Part::Text(std::mem::take(&mut literal)));
            }
            parts.push(Part::Ref(reference));
            rest = &after[end + 1..];
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            parts.push(Part::Text(literal));
        }
        Ok(Template { parts })
    }

    /// The references, in order.
    pub fn references(&self) -> impl Iterator<Item = &Reference> {
        self.parts.iter().filter_map(|p| match p {
            Part::Ref(r) => Some(r),
            Part::Text(_) => None,
        })
    }

    /// The reference, when the template is exactly one and nothing else.
    pub fn whole(&self) -> Option<&Reference> {
        match self.parts.as_slice() {
            [Part::Ref(r)] => Some(r),
            _ => None,
        }
    }

    /// The text with every reference replaced by its value: a string as
    /// is, `null`, numbers and booleans as JSON text, objects and lists as
    /// compact JSON.
    pub fn render(&self, scope: &Scope) -> Result<String, MissingValue> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Text(t) => out.push_str(t),
                Part::Ref(r) => match scope.resolve(r) {
                    Some(Value::String(s)) => out.push_str(&s),
                    Some(other) => out.push_str(&other.to_string()),
                    None => {
                        return Err(MissingValue {
                            reference: r.text.clone(),
                        });
                    }
                },
            }
        }
        Ok(out)
    }

    /// The referenced value itself for a template that is one reference
    /// (an object stays an object), else the rendered string.
    pub fn value(&self, scope: &Scope) -> Result<Value, MissingValue> {
        match self.whole() {
            Some(r) => scope.resolve(r).ok_or_else(|| MissingValue {
                reference: r.text.clone(),
            }),
            None => self.render(scope).map(Value::String),
        }
    }
}

/// The values references are resolved against, filled by the engine.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scope {
    /// The workflow's input JSON.
    pub input: Value,
    /// `{run_id, name}`.
    pub workflow: Value,
    /// Each step that has a record: `{status, result, output, run_id,
    /// action}`.
    pub steps: BTreeMap<String, Value>,
    /// The action request a decision answers (`{action, context}`), in its
    /// agent's prompt.
    pub action: Option<Value>,
    /// A decision's answer (`{choice, reason}`), in its `args`.
    pub answer: Option<Value>,
}

impl Scope {
    /// The value `r` names: its root, then each segment (an index into a
    /// list, a key into an object); `None` when any is missing.
    pub fn resolve(&self, r: &Reference) -> Option<Value> {
        let mut value = match &r.root {
            RefRoot::Input => &self.input,
            RefRoot::Workflow => &self.workflow,
            RefRoot::Step { id, field } => self.steps.get(id)?.get(field.as_str())?,
            RefRoot::Action => self.action.as_ref()?,
            RefRoot::Answer => self.answer.as_ref()?,
        };
        for segment in &r.path {
            value = match (value, segment) {
                (Value::Array(items), Segment::Index(i)) => items.get(*i)?,
                (Value::Object(map), Segment::Key(k)) => map.get(k)?,
                _ => return None,
            };
        }
        Some(value.clone())
    }
}

#[cfg(test)]
mod tests;
