//! The steps' dependencies, and the refusal of a cycle.
//!
//! A step depends on the step before it in the top-level list (members of
//! a `parallel` group do not depend on their siblings by order), on the
//! steps it `needs`, and on every step it refers to (`when`, templates, a
//! decision's `for`). A member of a group also depends on what its group
//! depends on; a group ends after all its members (the membership edge,
//! used to find cycles but not listed among the dependencies). A
//! reference to a step that runs later is therefore a cycle.
//!
//! The search is iterative: a long chain of steps cannot overflow the
//! stack.

use std::collections::{HashMap, HashSet};

use super::check::StepInfo;
use crate::manifest::Fault;

/// The most steps of a cycle its message names.
const SHOWN: usize = 10;

/// Each step's dependencies (indexes into `infos`, deduplicated, in the
/// order: the step before, `needs`, references, the group's), or the
/// fault of a cycle or of a group waiting for its own member.
pub(crate) fn dependencies(infos: &[StepInfo]) -> Result<Vec<Vec<usize>>, Fault> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, info) in infos.iter().enumerate() {
        index.entry(info.id.as_str()).or_insert(i);
    }
    let mut deps: Vec<Vec<usize>> = Vec::with_capacity(infos.len());
    for (i, info) in infos.iter().enumerate() {
        let mut own = Vec::new();
        let mut seen = HashSet::new();
        let named = info.needs.iter().chain(&info.refs);
        let named = named.filter_map(|id| index.get(id.as_str()).copied());
        for d in info.prev.into_iter().chain(named) {
            if seen.insert(d) {
                own.push(d);
            }
        }
        let inside = own.iter().find(|d| **d != i && is_within(infos, **d, i));
        if let Some(member) = inside.and_then(|m| infos.get(*m)) {
            let member = &member.id;
            return Err(Fault::new(
                info.path.clone(),
                format!(
                    "the group `{}` waits for its own member `{member}`: a group's `when` and `needs` come before its members run",
                    info.id
                ),
            ));
        }
        // A group comes before its members: its list is complete.
        if let Some(group) = info.group.and_then(|g| deps.get(g)) {
            for d in group {
                if seen.insert(*d) {
                    own.push(*d);
                }
            }
        }
        deps.push(own);
    }
    if let Some(mut cycle) = find_cycle(infos, &deps) {
        // Told from its first step in file order.
        let first = cycle.iter().copied().min().unwrap_or_default();
        let from = cycle.iter().position(|c| *c == first).unwrap_or_default();
        cycle.rotate_left(from);
        cycle.push(first);
        let steps: Vec<&StepInfo> = cycle.iter().filter_map(|c| infos.get(*c)).collect();
        let mut names: Vec<&str> = steps.iter().map(|s| s.id.as_str()).collect();
        let mut count = String::new();
        if names.len() > SHOWN + 1 {
            // A long cycle: its start and its end.
            count = format!(", {} steps", names.len() - 1);
            names.splice(SHOWN / 2..names.len() - SHOWN / 2, ["…"]);
        }
        return Err(Fault::new(
            steps.first().map(|s| s.path.clone()).unwrap_or_default(),
            format!(
                "a cycle: {} (each waits for the next{count})",
                names.join(" → ")
            ),
        ));
    }
    Ok(deps)
}

/// Whether step `i` is `group` or inside it, at any depth.
fn is_within(infos: &[StepInfo], i: usize, group: usize) -> bool {
    let mut at = Some(i);
    while let Some(step) = at {
        if step == group {
            return true;
        }
        at = infos.get(step).and_then(|s| s.group);
    }
    false
}

/// A cycle of the graph (each waits for the next, the last for the
/// first), searched from each step in file order.
fn find_cycle(infos: &[StepInfo], deps: &[Vec<usize>]) -> Option<Vec<usize>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let edges = |i: usize| -> Vec<usize> {
        let mut out = deps.get(i).cloned().unwrap_or_default();
        out.extend(infos.get(i).map(|s| s.members.clone()).unwrap_or_default());
        // Followed from the end: reversed, they are followed in order.
        out.reverse();
        out
    };
    let mut mark = vec![Mark::New; infos.len()];
    for root in 0..infos.len() {
        if mark[root] != Mark::New {
            continue;
        }
        // The path from `root`, each step with its edges not yet followed.
        let mut stack: Vec<(usize, Vec<usize>)> = vec![(root, edges(root))];
        mark[root] = Mark::Open;
        while let Some((node, pending)) = stack.last_mut() {
            let node = *node;
            let Some(next) = pending.pop() else {
                mark[node] = Mark::Done;
                stack.pop();
                continue;
            };
            match mark.get(next).copied() {
                Some(Mark::New) => {
                    mark[next] = Mark::Open;
                    stack.push((next, edges(next)));
                }
                Some(Mark::Open) => {
                    let from = stack.iter().position(|(s, _)| *s == next)?;
                    return Some(stack[from..].iter().map(|(s, _)| *s).collect());
                }
                _ => {}
            }
        }
    }
    None
}

/// The ids of `deps`.
pub(crate) fn ids(infos: &[StepInfo], deps: &[usize]) -> Vec<String> {
    deps.iter()
        .filter_map(|d| infos.get(*d).map(|s| s.id.clone()))
        .collect()
}
