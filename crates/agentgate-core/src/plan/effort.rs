//! One step's reasoning effort, thinking budget and turn limit: what the
//! step's CLI has a knob for ([`Knobs`]), an effort the model does not
//! take clamped or dropped where its levels are known (a catalog's, through
//! [`RunFlags::effort_levels`](crate::run_flags::RunFlags)), and the
//! envelope's `effort` saying what was applied. A value the CLI cannot take
//! is left out with a warning, not refused: a chain's other members may
//! take it, and the run still answers.

use agentgate_protocol::EffortReport;
use agentgate_providers::reasoning::{Knobs, claude_effort, effort_rank, qwen_effort};

use crate::settings::{Settings, UnsupportedEffort};

/// What the step passes to its CLI, and what it tells the caller.
#[derive(Debug, Default)]
pub(super) struct Resolved {
    pub effort: Option<String>,
    pub thinking_budget: Option<u32>,
    pub max_turns: Option<u32>,
    /// The envelope's `effort`, when an effort or a budget was asked for.
    pub report: Option<EffortReport>,
    /// What the caller must be told (also the step's notices).
    pub warnings: Vec<String>,
}

/// Resolve `settings`' knobs for `provider` running `model`; `levels`: the
/// efforts the model takes, if known.
pub(super) fn resolve(
    provider: &str,
    model: Option<&str>,
    settings: &Settings,
    levels: Option<&[String]>,
) -> Resolved {
    let knobs = Knobs::of(provider);
    let mut out = Resolved::default();
    let mut notes: Vec<String> = Vec::new();
    let mut via: Vec<String> = Vec::new();
    if let Some(asked) = &settings.reasoning_effort {
        match knobs.effort {
            None => notes.push(format!(
                "{provider} has no reasoning effort agentgate can set: `{asked}` left out"
            )),
            Some(how) => {
                let fallback = settings.unsupported_effort.unwrap_or_default();
                let (level, note) = fit(provider, model, asked, levels, fallback);
                notes.extend(note);
                if let Some(l) = level {
                    let raised = match provider {
                        "claude" => Some(("--effort takes low to max", claude_effort(&l))),
                        "qwen" => Some((
                            "model.reasoningEffort takes none and low to max",
                            qwen_effort(&l),
                        )),
                        _ => None,
                    };
                    let given = match raised {
                        Some((takes, g)) if g != l => {
                            notes.push(format!("{provider}'s {takes}: `{l}` raised to `{g}`"));
                            g.to_owned()
                        }
                        _ => l,
                    };
                    via.push(how.to_owned());
                    out.effort = Some(given);
                }
            }
        }
    }
    if let Some(n) = settings.thinking_budget {
        match knobs.thinking_budget {
            None => notes.push(format!(
                "{provider} has no thinking budget agentgate can set: {n} tokens left out"
            )),
            Some(how) => {
                via.push(how.to_owned());
                out.thinking_budget = Some(n);
            }
        }
    }
    if settings.reasoning_effort.is_some() || settings.thinking_budget.is_some() {
        out.warnings.extend(notes.iter().cloned());
        out.report = Some(EffortReport {
            requested: settings.reasoning_effort.clone(),
            applied: out.effort.clone(),
            thinking_budget: out.thinking_budget,
            via,
            effort_resolution: (!notes.is_empty()).then(|| notes.join("; ")),
        });
    }
    if let Some(n) = settings.max_turns {
        match knobs.max_turns {
            Some(_) => out.max_turns = Some(n),
            None => out.warnings.push(format!(
                "{provider} has no limit on turns agentgate can set: --max-turns {n} left out"
            )),
        }
    }
    out
}

/// `asked` fitted to `levels` (when known): the level to pass, if any,
/// and a note when it is not `asked`.
fn fit(
    provider: &str,
    model: Option<&str>,
    asked: &str,
    levels: Option<&[String]>,
    fallback: UnsupportedEffort,
) -> (Option<String>, Option<String>) {
    let Some(levels) = levels else {
        return (Some(asked.to_owned()), None);
    };
    if levels.iter().any(|l| l == asked) {
        return (Some(asked.to_owned()), None);
    }
    let model = model.unwrap_or("its default model");
    let takes = format!("{provider} {model} takes {}", levels.join(", "));
    if fallback == UnsupportedEffort::Drop {
        return (None, Some(format!("{takes}: `{asked}` left out")));
    }
    let rank = effort_rank(asked).unwrap_or(0);
    let mut ranked: Vec<(usize, &String)> = levels
        .iter()
        .filter_map(|l| effort_rank(l).map(|r| (r, l)))
        .collect();
    ranked.sort();
    let below = ranked.iter().rev().find(|(r, _)| *r < rank);
    let above = ranked.iter().find(|(r, _)| *r > rank);
    match below.or(above) {
        Some((_, l)) => (
            Some((*l).clone()),
            Some(format!("{takes}: `{asked}` clamped to `{l}`")),
        ),
        None => (None, Some(format!("{takes}: `{asked}` left out"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asking(effort: Option<&str>, budget: Option<u32>, turns: Option<u32>) -> Settings {
        Settings {
            reasoning_effort: effort.map(str::to_owned),
            thinking_budget: budget,
            max_turns: turns,
            ..Settings::default()
        }
    }

    fn levels(l: &[&str]) -> Vec<String> {
        l.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn without_known_levels_the_effort_passes_as_asked() {
        let r = resolve(
            "codex",
            Some("gpt-5.5"),
            &asking(Some("high"), None, None),
            None,
        );
        assert_eq!(r.effort.as_deref(), Some("high"));
        let report = r.report.unwrap();
        assert_eq!(report.applied.as_deref(), Some("high"));
        assert_eq!(report.via, ["-c model_reasoning_effort"]);
        assert_eq!(report.effort_resolution, None);
        assert!(r.warnings.is_empty());
    }

    #[test]
    fn an_effort_the_model_does_not_take_is_clamped_down_or_dropped() {
        let known = levels(&["low", "medium", "high", "xhigh"]);
        let r = resolve(
            "codex",
            Some("gpt-5.5"),
            &asking(Some("max"), None, None),
            Some(&known),
        );
        assert_eq!(r.effort.as_deref(), Some("xhigh"));
        let note = r.report.unwrap().effort_resolution.unwrap();
        assert!(note.contains("`max` clamped to `xhigh`"), "{note}");
        assert_eq!(r.warnings, [note]);
        // Below the lowest: up to the lowest.
        let r = resolve(
            "codex",
            None,
            &asking(Some("minimal"), None, None),
            Some(&known),
        );
        assert_eq!(r.effort.as_deref(), Some("low"));
        let drop = Settings {
            unsupported_effort: Some(UnsupportedEffort::Drop),
            ..asking(Some("max"), None, None)
        };
        let r = resolve("codex", Some("gpt-5.5"), &drop, Some(&known));
        assert_eq!(r.effort, None);
        let report = r.report.unwrap();
        assert_eq!((report.applied, report.via.len()), (None, 0));
        assert!(
            report
                .effort_resolution
                .unwrap()
                .ends_with("`max` left out")
        );
    }

    #[test]
    fn a_cli_without_the_knob_gets_nothing_and_the_caller_is_told() {
        let r = resolve(
            "cursor",
            None,
            &asking(Some("high"), Some(100), Some(2)),
            None,
        );
        assert_eq!(
            (r.effort, r.thinking_budget, r.max_turns),
            (None, None, None)
        );
        assert_eq!(r.warnings.len(), 3, "{:?}", r.warnings);
        assert!(r.warnings[2].contains("--max-turns 2 left out"));
        let note = r.report.unwrap().effort_resolution.unwrap();
        assert!(note.contains("cursor has no reasoning effort"), "{note}");
    }

    #[test]
    fn claude_takes_effort_budget_and_turns_and_raises_a_low_level() {
        let r = resolve(
            "claude",
            None,
            &asking(Some("minimal"), Some(5000), Some(2)),
            None,
        );
        assert_eq!(r.effort.as_deref(), Some("low"));
        assert_eq!((r.thinking_budget, r.max_turns), (Some(5000), Some(2)));
        let report = r.report.unwrap();
        assert_eq!(report.via, ["--effort", "MAX_THINKING_TOKENS"]);
        assert!(
            report
                .effort_resolution
                .unwrap()
                .contains("raised to `low`")
        );
        // Turns alone put nothing in the envelope.
        let r = resolve("claude", None, &asking(None, None, Some(2)), None);
        assert!(r.report.is_none() && r.warnings.is_empty());
    }

    #[test]
    fn qwen_takes_effort_in_its_settings_and_raises_a_low_level() {
        let r = resolve(
            "qwen",
            None,
            &asking(Some("minimal"), Some(100), None),
            None,
        );
        assert_eq!(r.effort.as_deref(), Some("low"));
        assert_eq!(r.thinking_budget, None);
        let report = r.report.unwrap();
        assert_eq!(report.via, ["settings model.reasoningEffort"]);
        let note = report.effort_resolution.unwrap();
        assert!(note.contains("`minimal` raised to `low`"), "{note}");
        assert!(note.contains("qwen has no thinking budget"), "{note}");
    }
}
