//! How hard a model thinks, and how long an agent may go on: the knobs
//! each CLI has for `--reasoning-effort`, `--thinking-budget` and
//! `--max-turns`, and the argv-table code that turns them into its
//! arguments, variables or settings.
//!
//! | CLI | effort | thinking budget | max turns |
//! |---|---|---|---|
//! | Codex | `-c model_reasoning_effort=E` (one-shot and resume alike) | none | none |
//! | Claude Code | `--effort E` (low..max; the CLI ignores it on models without effort, which think with a budget) | `MAX_THINKING_TOKENS=N` | `--max-turns N` |
//! | Gemini CLI | its settings' `modelConfigs.customOverrides`: `thinkingLevel` on Gemini 3, a `thinkingBudget` per level on the others (`gemini/mcp_home.rs` writes them) | `thinkingBudget: N` | none |
//! | opencode | `--variant E` | none | none |
//! | Qwen Code | its settings' `model.reasoningEffort` (none, low..max; in the run's copy of the system settings, `qwen/mod.rs`), which Qwen maps and clamps per model (sent as `reasoning_effort` where the model reasons) | none | none |
//!
//! The others (cursor-agent, agy, described CLIs) have none
//! that agentgate can set headless per run; the planner leaves the value
//! out and says so ([`Knobs::of`]). Which levels a model takes is the
//! planner's business (a catalog's list, when it has one); this module
//! passes what it is given.

use std::ffi::OsString;

use serde_json::{Value, json};

use super::argv::Context;
use super::provider::{CliCommand, CommandError};

/// The effort levels, lowest first: the union of the CLIs' scales
/// (Codex: none..xhigh; Claude Code: low..max).
pub const EFFORT_LEVELS: [&str; 7] = ["none", "minimal", "low", "medium", "high", "xhigh", "max"];

/// `s` as an effort level, or why it is none.
pub fn parse_effort(s: &str) -> Result<String, String> {
    let level = s.trim().to_ascii_lowercase();
    if EFFORT_LEVELS.contains(&level.as_str()) {
        Ok(level)
    } else {
        Err(format!(
            "`{s}` is not a reasoning effort (expected one of {})",
            EFFORT_LEVELS.join(", ")
        ))
    }
}

/// The place of `level` on [`EFFORT_LEVELS`].
pub fn effort_rank(level: &str) -> Option<usize> {
    EFFORT_LEVELS.iter().position(|l| *l == level)
}

/// How a CLI takes each knob, in words for the envelope (`None`: it has
/// no such knob).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Knobs {
    /// How the effort level reaches the CLI.
    pub effort: Option<&'static str>,
    /// How a thinking budget in tokens reaches it.
    pub thinking_budget: Option<&'static str>,
    /// How a limit on turns reaches it.
    pub max_turns: Option<&'static str>,
}

impl Knobs {
    /// The knobs of the provider named `provider`.
    pub fn of(provider: &str) -> Knobs {
        match provider {
            "codex" => Knobs {
                effort: Some("-c model_reasoning_effort"),
                ..Knobs::default()
            },
            "claude" => Knobs {
                effort: Some("--effort"),
                thinking_budget: Some("MAX_THINKING_TOKENS"),
                max_turns: Some("--max-turns"),
            },
            "gemini" => Knobs {
                effort: Some("settings modelConfigs thinkingConfig"),
                thinking_budget: Some("settings modelConfigs thinkingBudget"),
                max_turns: None,
            },
            "qwen" => Knobs {
                effort: Some("settings model.reasoningEffort"),
                ..Knobs::default()
            },
            "opencode" => Knobs {
                effort: Some("--variant"),
                ..Knobs::default()
            },
            _ => Knobs::default(),
        }
    }
}

/// Claude Code's `--effort` takes low..max: a lower level asked for is
/// raised to `low`.
pub fn claude_effort(level: &str) -> &str {
    match level {
        "none" | "minimal" => "low",
        other => other,
    }
}

/// Qwen Code's `model.reasoningEffort` takes none and low..max: `minimal`
/// is raised to `low`.
pub fn qwen_effort(level: &str) -> &str {
    match level {
        "minimal" => "low",
        other => other,
    }
}

/// Codex: `-c model_reasoning_effort="E"`, in the part both `exec` and
/// `exec resume` share (a resumed thread does not inherit it).
pub(crate) fn codex_effort(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    if let Some(e) = &ctx.request.reasoning_effort {
        cmd.args.push(OsString::from("-c"));
        cmd.args
            .push(OsString::from(format!("model_reasoning_effort=\"{e}\"")));
    }
    Ok(())
}

/// Claude Code: `--effort`, `--max-turns` and `MAX_THINKING_TOKENS`.
pub(crate) fn claude_knobs(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    let r = ctx.request;
    if let Some(e) = &r.reasoning_effort {
        cmd.args.push(OsString::from("--effort"));
        cmd.args.push(OsString::from(claude_effort(e)));
    }
    if let Some(n) = r.max_turns {
        cmd.args.push(OsString::from("--max-turns"));
        cmd.args.push(OsString::from(n.to_string()));
    }
    if let Some(n) = r.thinking_budget {
        cmd.env.push((
            OsString::from("MAX_THINKING_TOKENS"),
            OsString::from(n.to_string()),
        ));
    }
    Ok(())
}

/// opencode: `--variant E` (its model's variants: `minimal`, `high`,
/// `max`, ...).
pub(crate) fn opencode_variant(
    ctx: &Context<'_>,
    cmd: &mut CliCommand,
) -> Result<(), CommandError> {
    if let Some(e) = &ctx.request.reasoning_effort {
        cmd.args.push(OsString::from("--variant"));
        cmd.args.push(OsString::from(e));
    }
    Ok(())
}

/// The models Gemini CLI runs when none is named (its default, and the
/// other model its automatic routing of the 2.5 family picks).
const GEMINI_DEFAULT_MODELS: [&str; 2] = ["gemini-2.5-pro", "gemini-2.5-flash"];

/// A Gemini 2.5 thinking budget for each effort level (tokens; 0 turns
/// thinking off where the model allows it).
fn gemini_budget(level: &str) -> u32 {
    match level {
        "none" => 0,
        "minimal" => 512,
        "low" => 1024,
        "medium" => 8192,
        "high" => 16384,
        "xhigh" => 24576,
        _ => 32768,
    }
}

/// A Gemini 3 thinking level for each effort level.
fn gemini_level(level: &str) -> &'static str {
    match level {
        "none" | "minimal" => "MINIMAL",
        "low" => "LOW",
        "medium" => "MEDIUM",
        _ => "HIGH",
    }
}

/// The `thinkingConfig` of `model` for the request's effort and budget
/// (the budget wins), if it asks for either.
pub fn gemini_thinking_config(
    model: &str,
    effort: Option<&str>,
    budget: Option<u32>,
) -> Option<Value> {
    if let Some(n) = budget {
        return Some(json!({ "thinkingBudget": n }));
    }
    let e = effort?;
    Some(if model.starts_with("gemini-3") {
        json!({ "thinkingLevel": gemini_level(e) })
    } else {
        json!({ "thinkingBudget": gemini_budget(e) })
    })
}

/// Gemini CLI's settings entries (`modelConfigs.customOverrides`) that
/// set the request's thinking on its model (on the default models when it
/// names none); empty when it asks for nothing.
pub(crate) fn gemini_overrides(ctx: &Context<'_>) -> Vec<Value> {
    let r = ctx.request;
    let models: Vec<&str> = match r.model.as_deref().filter(|m| !m.is_empty()) {
        Some(m) => vec![m],
        None => GEMINI_DEFAULT_MODELS.to_vec(),
    };
    models
        .into_iter()
        .filter_map(|m| {
            let config =
                gemini_thinking_config(m, r.reasoning_effort.as_deref(), r.thinking_budget)?;
            Some(json!({
                "match": { "model": m },
                "modelConfig": { "generateContentConfig": { "thinkingConfig": config } }
            }))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::claude::CLAUDE;
    use crate::codex::CODEX;
    use crate::gemini::GEMINI;
    use crate::opencode::OPENCODE;
    use crate::provider::{CliRequest, Provider};
    use crate::test_support::{argv, req};

    fn asking(effort: Option<&str>, budget: Option<u32>, turns: Option<u32>) -> CliRequest {
        CliRequest {
            reasoning_effort: effort.map(str::to_owned),
            thinking_budget: budget,
            max_turns: turns,
            ..req()
        }
    }

    fn has_pair(args: &[String], flag: &str, value: &str) -> bool {
        args.windows(2).any(|w| w[0] == flag && w[1] == value)
    }

    #[test]
    fn codex_gets_the_effort_on_fresh_and_resumed_turns() {
        let fresh = argv(&CODEX, &asking(Some("high"), None, None));
        assert!(
            has_pair(&fresh, "-c", "model_reasoning_effort=\"high\""),
            "{fresh:?}"
        );
        let resumed = argv(
            &CODEX,
            &CliRequest {
                resume: Some("t-1".into()),
                ..asking(Some("low"), None, None)
            },
        );
        assert!(
            has_pair(&resumed, "-c", "model_reasoning_effort=\"low\""),
            "{resumed:?}"
        );
        assert!(!argv(&CODEX, &req()).join(" ").contains("reasoning"));
    }

    #[test]
    fn claude_gets_effort_turns_and_a_budget_variable() {
        let r = asking(Some("minimal"), Some(5000), Some(2));
        let c = CLAUDE
            .command(&r, Path::new("/bin/claude"), &crate::Scratch::temporary())
            .unwrap();
        let args = c.display_args();
        assert!(has_pair(&args, "--effort", "low"), "{args:?}");
        assert!(has_pair(&args, "--max-turns", "2"), "{args:?}");
        assert!(
            c.env
                .iter()
                .any(|(k, v)| k == "MAX_THINKING_TOKENS" && v == "5000"),
            "{:?}",
            c.env
        );
        let plain = argv(&CLAUDE, &req()).join(" ");
        assert!(!plain.contains("--effort") && !plain.contains("--max-turns"));
    }

    #[test]
    fn opencode_gets_a_variant() {
        let args = argv(&OPENCODE, &asking(Some("max"), None, None));
        assert!(has_pair(&args, "--variant", "max"), "{args:?}");
    }

    #[test]
    fn gemini_gets_the_thinking_in_its_runs_own_settings() {
        let dir = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".gemini")).unwrap();
        std::fs::write(
            home.path().join(".gemini/settings.json"),
            r#"{"modelConfigs": {"customOverrides": [{"match": {"model": "mine"}, "modelConfig": {}}]}}"#,
        )
        .unwrap();
        let mut r = CliRequest {
            model: Some("gemini-2.5-flash".into()),
            env_clear: true,
            ..asking(None, Some(1234), None)
        };
        r.env
            .push(("HOME".into(), home.path().display().to_string()));
        let c = GEMINI
            .command(&r, Path::new("/bin/gemini"), &dir.path().into())
            .unwrap();
        let root = c
            .env
            .iter()
            .find(|(k, _)| k == "GEMINI_CLI_HOME")
            .map(|(_, v)| std::path::PathBuf::from(v))
            .unwrap();
        let text = std::fs::read_to_string(root.join(".gemini/settings.json")).unwrap();
        let got: Value = serde_json::from_str(&text).unwrap();
        let list = got["modelConfigs"]["customOverrides"].as_array().unwrap();
        assert_eq!(list[0]["match"]["model"], "mine", "the user's entry kept");
        assert_eq!(
            list[1],
            json!({"match": {"model": "gemini-2.5-flash"},
                   "modelConfig": {"generateContentConfig": {"thinkingConfig": {"thinkingBudget": 1234}}}})
        );
        // No MCP servers: none allowed by name.
        assert!(
            !c.display_args()
                .contains(&"--allowed-mcp-server-names".to_owned())
        );
        // Nothing asked: no home of its own.
        let plain = GEMINI
            .command(&req(), Path::new("/bin/gemini"), &dir.path().into())
            .unwrap();
        assert!(!plain.env.iter().any(|(k, _)| k == "GEMINI_CLI_HOME"));
    }

    #[test]
    fn levels_parse_case_blind_and_typos_are_refused() {
        assert_eq!(parse_effort(" High ").unwrap(), "high");
        assert!(parse_effort("ultra").unwrap_err().contains("none, minimal"));
        assert!(effort_rank("low") < effort_rank("xhigh"));
    }

    #[test]
    fn gemini_3_gets_a_level_the_others_a_budget() {
        assert_eq!(
            gemini_thinking_config("gemini-3-pro-preview", Some("low"), None),
            Some(json!({"thinkingLevel": "LOW"}))
        );
        assert_eq!(
            gemini_thinking_config("gemini-2.5-flash", Some("low"), None),
            Some(json!({"thinkingBudget": 1024}))
        );
        assert_eq!(
            gemini_thinking_config("gemini-3-pro-preview", Some("low"), Some(77)),
            Some(json!({"thinkingBudget": 77}))
        );
        assert_eq!(gemini_thinking_config("gemini-2.5-pro", None, None), None);
    }

    #[test]
    fn only_the_cli_with_a_knob_takes_it() {
        assert_eq!(Knobs::of("claude").max_turns, Some("--max-turns"));
        assert_eq!(Knobs::of("codex").max_turns, None);
        assert_eq!(Knobs::of("cursor"), Knobs::default());
    }
}
