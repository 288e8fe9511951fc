//! The checks a parsed workflow passes (what serde's types cannot say),
//! in file order, each fault naming its place as a path of keys (which
//! `load.rs` turns into a line):
//!
//! - the workflow: `version` 1, a `name`, steps, a valid `timeout`;
//! - each step (depth first, group members after their group): its id
//!   (safe, unique in the whole workflow), exactly one kind, the keys of
//!   its kind only, its durations, `needs` naming steps that exist, its
//!   `when`, its templates (and where `${action}` and `${answer}` may be),
//!   its agent mapping (`agent.rs`), a group's members and concurrency, a
//!   decision's `for`, choices and rounds;
//! - the outputs' templates.
//!
//! It returns one [`StepInfo`] per step: what `graph.rs` needs to find
//! each step's dependencies and any cycle.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use agentgate_core::parse_duration;

use super::agent::agent_request;
use super::condition::Condition;
use super::definition::{AnswerTo, StepDef, StepKind, WORKFLOW_VERSION, WorkflowDef};
use super::refs::{RefRoot, Template};
use crate::manifest::{Fault, is_safe_name};
use crate::yaml::Step;

/// The longest step id, in bytes.
pub const MAX_STEP_ID_LEN: usize = 64;

/// What the dependency graph needs of one step.
#[derive(Debug, Clone)]
pub(crate) struct StepInfo {
    /// The step's id.
    pub id: String,
    /// Its place in the file (`steps[1].parallel.steps[0]`).
    pub path: Vec<Step>,
    /// Its place in the definition: the index in `steps`, then in each
    /// group's `steps`.
    pub loc: Vec<usize>,
    /// The group it is a member of (an index into the list of infos).
    pub group: Option<usize>,
    /// A group's members (indexes into the list of infos).
    pub members: Vec<usize>,
    /// The step before it in the top-level list.
    pub prev: Option<usize>,
    /// The steps it `needs`.
    pub needs: Vec<String>,
    /// The steps its `when`, templates and `for` refer to.
    pub refs: Vec<String>,
}

fn key(k: &str) -> Step {
    Step::Key(k.to_owned())
}

fn at(base: &[Step], more: &[Step]) -> Vec<Step> {
    base.iter().chain(more).cloned().collect()
}

/// Whether `id` is a valid step id: `[A-Za-z0-9_-]`, 1 to
/// [`MAX_STEP_ID_LEN`] bytes.
pub fn is_step_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_STEP_ID_LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Where a template is, which decides the roots it may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Anywhere but the two below.
    Plain,
    /// A decision's agent prompt: `${action}` too.
    DecisionPrompt,
    /// A decision's `args`: `${answer}` too.
    DecisionArgs,
}

/// The steps, depth first, with their places.
fn collect<'a>(
    steps: &'a [StepDef],
    path: &[Step],
    loc: &[usize],
    group: Option<usize>,
    out: &mut Vec<(StepInfo, &'a StepDef)>,
) {
    let mut prev = None;
    for (i, step) in steps.iter().enumerate() {
        let index = out.len();
        if let Some(g) = group
            && let Some((info, _)) = out.get_mut(g)
        {
            info.members.push(index);
        }
        let here = at(path, &[Step::Index(i)]);
        let mut place = loc.to_vec();
        place.push(i);
        out.push((
            StepInfo {
                id: step.id.clone(),
                path: here.clone(),
                loc: place.clone(),
                group,
                members: Vec::new(),
                prev: if group.is_none() { prev } else { None },
                needs: Vec::new(),
                refs: Vec::new(),
            },
            step,
        ));
        prev = Some(index);
        if let Some(parallel) = &step.parallel {
            let inner = at(&here, &[key("parallel"), key("steps")]);
            collect(&parallel.steps, &inner, &place, Some(index), out);
        }
    }
}

/// Check `def`; the steps' infos in file order, or the first fault.
pub(crate) fn check(def: &WorkflowDef, base_dir: &Path) -> Result<Vec<StepInfo>, Fault> {
    if def.version != WORKFLOW_VERSION {
        return Err(Fault::new(
            vec![key("version")],
            format!(
                "workflow version {} is not supported: this agentgate reads version {WORKFLOW_VERSION}",
                def.version
            ),
        ));
    }
    if def.name.trim().is_empty() {
        return Err(Fault::new(vec![key("name")], "the name is empty"));
    }
    if let Some(timeout) = &def.timeout {
        duration(timeout, vec![key("timeout")], true)?;
    }
    if def.steps.is_empty() {
        return Err(Fault::new(
            vec![key("steps")],
            "no steps: a workflow needs at least one",
        ));
    }
    let mut walked = Vec::new();
    collect(&def.steps, &[key("steps")], &[], None, &mut walked);
    // The first step of each id, for references and `for`.
    let mut first: HashMap<&str, usize> = HashMap::new();
    for (i, (info, _)) in walked.iter().enumerate() {
        first.entry(info.id.as_str()).or_insert(i);
    }
    let mut infos = Vec::with_capacity(walked.len());
    let mut seen: HashMap<&str, &[Step]> = HashMap::new();
    for (i, (info, step)) in walked.iter().enumerate() {
        let id_at = at(&info.path, &[key("id")]);
        if !is_step_id(&step.id) {
            return Err(Fault::new(
                id_at,
                format!(
                    "`{}` is not a step id (letters, digits, `_` and `-`, 1 to {MAX_STEP_ID_LEN} bytes)",
                    step.id
                ),
            ));
        }
        if let Some(other) = seen.insert(&step.id, &info.path) {
            return Err(Fault::new(
                id_at,
                format!(
                    "the id `{}` is also {}'s: ids are unique in the workflow",
                    step.id,
                    crate::yaml::path_text(other)
                ),
            ));
        }
        let checker = StepCheck {
            step,
            path: &info.path,
            index: i,
            first: &first,
            walked: &walked,
            base_dir,
        };
        let (needs, refs) = checker.check()?;
        infos.push(StepInfo {
            needs,
            refs,
            ..info.clone()
        });
    }
    for (name, text) in &def.outputs {
        let here = vec![key("outputs"), key(name)];
        if name.trim().is_empty() {
            return Err(Fault::new(here, "an output's name is empty"));
        }
        template(text, Place::Plain, &first, here, &mut Vec::new())?;
    }
    Ok(infos)
}

/// One step's checks, with what they need of the rest.
struct StepCheck<'a> {
    step: &'a StepDef,
    path: &'a [Step],
    index: usize,
    first: &'a HashMap<&'a str, usize>,
    walked: &'a [(StepInfo, &'a StepDef)],
    base_dir: &'a Path,
}

impl StepCheck<'_> {
    fn at(&self, more: &[Step]) -> Vec<Step> {
        at(self.path, more)
    }

    /// The step's `needs` and the steps it refers to.
    fn check(&self) -> Result<(Vec<String>, Vec<String>), Fault> {
        let step = self.step;
        let kind = self.kind()?;
        self.kind_keys(kind)?;
        let mut needs = Vec::new();
        let mut needed = HashSet::new();
        for (j, need) in step.needs.iter().enumerate() {
            if !self.first.contains_key(need.as_str()) {
                return Err(Fault::new(
                    self.at(&[key("needs"), Step::Index(j)]),
                    format!("needs a missing step `{need}`"),
                ));
            }
            if needed.insert(need.as_str()) {
                needs.push(need.clone());
            }
        }
        let mut refs = Vec::new();
        if let Some(when) = &step.when {
            let here = self.at(&[key("when")]);
            let condition = Condition::parse(when).map_err(|m| Fault::new(here.clone(), m))?;
            for r in condition.references() {
                scoped(&r.root, Place::Plain, self.first)
                    .map_err(|m| Fault::new(here.clone(), m))?;
                if let Some(id) = r.step() {
                    refs.push(id.to_owned());
                }
            }
        }
        if let Some(timeout) = &step.timeout {
            duration(timeout, self.at(&[key("timeout")]), true)?;
        }
        if let Some(backoff) = &step.backoff {
            duration(backoff, self.at(&[key("backoff")]), false)?;
        }
        match kind {
            StepKind::Tool => self.tool(&mut refs)?,
            StepKind::Agent => self.agent(&mut refs)?,
            StepKind::Parallel => self.parallel()?,
            StepKind::Decision => self.decision(&mut refs)?,
        }
        Ok((needs, refs))
    }

    fn kind(&self) -> Result<StepKind, Fault> {
        let kinds = self.step.kinds();
        match kinds.as_slice() {
            [one] => Ok(*one),
            [] => Err(Fault::new(
                self.path.to_vec(),
                "a step needs one of tool, agent, parallel, decision",
            )),
            [_, second, ..] => {
                let names: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
                Err(Fault::new(
                    self.at(&[key(second.as_str())]),
                    format!(
                        "a step is one of tool, agent, parallel, decision: this one gives {}",
                        names.join(" and ")
                    ),
                ))
            }
        }
    }

    /// `args`, `copy_in` and `stdin` belong to tool steps.
    fn kind_keys(&self, kind: StepKind) -> Result<(), Fault> {
        if kind == StepKind::Tool {
            return Ok(());
        }
        let step = self.step;
        let given = [
            ("args", !step.args.is_empty()),
            ("copy_in", !step.copy_in.is_empty()),
            ("stdin", step.stdin.is_some()),
        ];
        match given.iter().find(|(_, on)| *on) {
            Some((field, _)) => Err(Fault::new(
                self.at(&[key(field)]),
                format!("only a tool step takes {field} (this is {})", a_kind(kind)),
            )),
            None => Ok(()),
        }
    }

    fn tool(&self, refs: &mut Vec<String>) -> Result<(), Fault> {
        let step = self.step;
        let name = step.tool.as_deref().unwrap_or_default();
        if !is_safe_name(name) {
            return Err(Fault::new(
                self.at(&[key("tool")]),
                format!(
                    "`{name}` is not a tool name (letters, digits, `_` and `-`, starting with a letter or digit)"
                ),
            ));
        }
        for (field, list) in [("args", &step.args), ("copy_in", &step.copy_in)] {
            for (j, text) in list.iter().enumerate() {
                let here = self.at(&[key(field), Step::Index(j)]);
                template(text, Place::Plain, self.first, here, refs)?;
            }
        }
        if let Some(stdin) = &step.stdin {
            template(
                stdin,
                Place::Plain,
                self.first,
                self.at(&[key("stdin")]),
                refs,
            )?;
        }
        Ok(())
    }

    fn agent(&self, refs: &mut Vec<String>) -> Result<(), Fault> {
        let mapping = self.step.agent.as_ref().unwrap_or(&serde_json::Value::Null);
        self.mapping(mapping, &[key("agent")], Place::Plain, refs)
    }

    /// An agent mapping at `field` (`agent` or `decision.agent`).
    fn mapping(
        &self,
        mapping: &serde_json::Value,
        field: &[Step],
        place: Place,
        refs: &mut Vec<String>,
    ) -> Result<(), Fault> {
        let base = self.at(field);
        agent_request(mapping, self.base_dir).map_err(|e| {
            let mut here = base.clone();
            if e.field != "request" {
                here.extend(e.field.split('.').map(key));
            }
            Fault::new(here, e.message)
        })?;
        if let Some(serde_json::Value::String(prompt)) = mapping.get("prompt") {
            template(prompt, place, self.first, at(&base, &[key("prompt")]), refs)?;
        }
        Ok(())
    }

    fn parallel(&self) -> Result<(), Fault> {
        let Some(group) = &self.step.parallel else {
            return Ok(());
        };
        if group.steps.is_empty() {
            return Err(Fault::new(
                self.at(&[key("parallel"), key("steps")]),
                "a parallel group needs at least one step",
            ));
        }
        if group.max_concurrency == Some(0) {
            return Err(Fault::new(
                self.at(&[key("parallel"), key("max_concurrency")]),
                "0 would run no member: give 1 or more, or leave it out (all at once)",
            ));
        }
        Ok(())
    }

    fn decision(&self, refs: &mut Vec<String>) -> Result<(), Fault> {
        let Some(d) = &self.step.decision else {
            return Ok(());
        };
        let here = |more: &[Step]| at(&self.at(&[key("decision")]), more);
        let target = &d.for_step;
        let for_at = || here(&[key("for")]);
        let Some(&index) = self.first.get(target.as_str()) else {
            return Err(Fault::new(
                for_at(),
                format!("names a missing step `{target}`"),
            ));
        };
        if index == self.index {
            return Err(Fault::new(
                for_at(),
                "a decision answers a tool step, not itself",
            ));
        }
        if index > self.index {
            return Err(Fault::new(
                for_at(),
                format!(
                    "`{target}` comes after this decision: a decision answers an earlier tool step"
                ),
            ));
        }
        if let Some((_, other)) = self.walked.get(index)
            && let Some(kind) = other.kind()
            && kind != StepKind::Tool
        {
            return Err(Fault::new(
                for_at(),
                format!(
                    "`{target}` is {}: a decision answers a tool step's action_required",
                    a_kind(kind)
                ),
            ));
        }
        refs.push(target.clone());
        if d.agent.get("output_schema").is_some() {
            return Err(Fault::new(
                here(&[key("agent"), key("output_schema")]),
                "a decision makes its own output schema (choice and reason): leave output_schema out",
            ));
        }
        self.mapping(
            &d.agent,
            &[key("decision"), key("agent")],
            Place::DecisionPrompt,
            refs,
        )?;
        if d.choices.is_empty() {
            return Err(Fault::new(
                here(&[key("choices")]),
                "no choices: list the answers the agent may give",
            ));
        }
        let mut seen = HashSet::new();
        for (j, choice) in d.choices.iter().enumerate() {
            let choice_at = || here(&[key("choices"), Step::Index(j)]);
            if choice.trim().is_empty() {
                return Err(Fault::new(choice_at(), "a choice is empty"));
            }
            if !seen.insert(choice.as_str()) {
                return Err(Fault::new(
                    choice_at(),
                    format!("the choice `{choice}` is listed twice"),
                ));
            }
        }
        if d.answer == AnswerTo::Next {
            for (field, given) in [
                ("args", d.args.is_some()),
                ("max_rounds", d.max_rounds.is_some()),
            ] {
                if given {
                    return Err(Fault::new(
                        here(&[key(field)]),
                        format!(
                            "{field} is for `answer: tool` (the tool runs again with the answer); this decision gives its answer to the next steps"
                        ),
                    ));
                }
            }
        }
        if d.max_rounds == Some(0) {
            return Err(Fault::new(
                here(&[key("max_rounds")]),
                "0 rounds would fail every decision: give 1 or more, or leave it out (3)",
            ));
        }
        for (j, text) in d.args.iter().flatten().enumerate() {
            let arg_at = here(&[key("args"), Step::Index(j)]);
            template(text, Place::DecisionArgs, self.first, arg_at, refs)?;
        }
        Ok(())
    }
}

/// "a tool step", "an agent step", ... for messages.
fn a_kind(kind: StepKind) -> &'static str {
    match kind {
        StepKind::Tool => "a tool step",
        StepKind::Agent => "an agent step",
        StepKind::Parallel => "a parallel group",
        StepKind::Decision => "a decision",
    }
}

/// A duration (`90s`, `10m`); a timeout of 0 is refused.
fn duration(text: &str, here: Vec<Step>, is_timeout: bool) -> Result<(), Fault> {
    match parse_duration(text) {
        Err(message) => Err(Fault::new(here, message)),
        Ok(d) if is_timeout && d.is_zero() => Err(Fault::new(
            here,
            "a timeout of 0 would end it at once: give a duration, or leave it out",
        )),
        Ok(_) => Ok(()),
    }
}

/// Check a template at `here`; the steps it refers to go to `refs`.
fn template(
    text: &str,
    place: Place,
    ids: &HashMap<&str, usize>,
    here: Vec<Step>,
    refs: &mut Vec<String>,
) -> Result<(), Fault> {
    let parsed = Template::parse(text).map_err(|m| Fault::new(here.clone(), m))?;
    for r in parsed.references() {
        scoped(&r.root, place, ids).map_err(|m| Fault::new(here.clone(), m))?;
        if let Some(id) = r.step() {
            refs.push(id.to_owned());
        }
    }
    Ok(())
}

/// Whether a reference's root is known at `place` (and names a step that
/// exists).
fn scoped(root: &RefRoot, place: Place, ids: &HashMap<&str, usize>) -> Result<(), String> {
    match root {
        RefRoot::Action if place != Place::DecisionPrompt => Err(
            "`${action...}` is only known in a decision's agent prompt (the action request it answers)".into(),
        ),
        RefRoot::Answer if place != Place::DecisionArgs => Err(
            "`${answer...}` is only known in a decision's args (the answer the tool runs again with)".into(),
        ),
        RefRoot::Step { id, .. } if !ids.contains_key(id.as_str()) => {
            Err(format!("a reference to a missing step `{id}`"))
        }
        _ => Ok(()),
    }
}
