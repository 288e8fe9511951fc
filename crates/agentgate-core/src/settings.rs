//! One run step's settings, as each layer gives them: the command line (or
//! a request to the library or the server), the agent of the config file,
//! the chain, the provider's defaults. [`Settings::combine`] layers two of
//! them, so that "the flag, else the agent, else the provider's default"
//! is written once.

use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use crate::retry_on::RetryOn;

pub use agentgate_providers::PermissionMode;
pub use agentgate_supervise::WarnPoint;

/// What to do when a failed attempt changed the workspace before the next
/// agent starts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum OnDirty {
    /// Stop the chain with an error (the default).
    #[default]
    Stop,
    /// Hand on anyway.
    Continue,
    /// `git stash` the changes, then hand on.
    Stash,
}

impl OnDirty {
    /// `stop`, `continue` or `stash`.
    pub fn as_str(self) -> &'static str {
        match self {
            OnDirty::Stop => "stop",
            OnDirty::Continue => "continue",
            OnDirty::Stash => "stash",
        }
    }
}

/// What the next agent learns of a failed attempt.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Handoff {
    /// Nothing (the default).
    #[default]
    None,
    /// The failed attempt's partial transcript, as context.
    Summary,
}

impl Handoff {
    /// `none` or `summary`.
    pub fn as_str(self) -> &'static str {
        match self {
            Handoff::None => "none",
            Handoff::Summary => "summary",
        }
    }
}

/// Where a run's CLI works on the files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum WorkspaceMode {
    /// In the working directory asked for, shared with whatever else runs
    /// there (the default).
    #[default]
    Shared,
    /// In a fresh `git worktree` of the repository that holds the working
    /// directory, on a branch `agentgate/<run_id>`; removed afterwards when
    /// the run changed nothing, kept and reported in the envelope when it
    /// did.
    Worktree,
}

impl WorkspaceMode {
    /// `shared` or `worktree`.
    pub fn as_str(self) -> &'static str {
        match self {
            WorkspaceMode::Shared => "shared",
            WorkspaceMode::Worktree => "worktree",
        }
    }
}

impl FromStr for WorkspaceMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "shared" => Ok(WorkspaceMode::Shared),
            "worktree" => Ok(WorkspaceMode::Worktree),
            other => Err(format!(
                "unknown workspace `{other}` (expected shared or worktree)"
            )),
        }
    }
}

/// What a layer's `extra_args` do to those of the layers below it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ExtraArgsMode {
    /// Come after them (the default).
    #[default]
    Append,
    /// Replace them: a task's own arguments instead of the agent's and
    /// the provider's (seed 001's task-level `cli_parameters`).
    Replace,
}

impl FromStr for ExtraArgsMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "append" => Ok(ExtraArgsMode::Append),
            "replace" => Ok(ExtraArgsMode::Replace),
            other => Err(format!(
                "unknown extra_args_mode `{other}` (expected append or replace)"
            )),
        }
    }
}

/// What the planner does with a reasoning effort the model does not take
/// (when it knows the model's levels: see `plan/effort.rs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum UnsupportedEffort {
    /// Use the nearest level the model takes, below the one asked for if
    /// there is one (the default).
    #[default]
    Clamp,
    /// Leave the effort out: the model's default applies.
    Drop,
}

impl FromStr for UnsupportedEffort {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "clamp" => Ok(UnsupportedEffort::Clamp),
            "drop" => Ok(UnsupportedEffort::Drop),
            other => Err(format!(
                "unknown unsupported_effort `{other}` (expected clamp or drop)"
            )),
        }
    }
}

/// What a layer says about one step. `None` (or an empty list) says
/// nothing, so the layer below decides.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// The CLI's executable (else `$AGENTGATE_<PROVIDER>_BIN`, else `PATH`).
    pub binary: Option<PathBuf>,
    /// Wall-clock limit of each attempt.
    pub timeout: Option<Duration>,
    /// Limit on silence.
    pub idle_timeout: Option<Duration>,
    /// When to warn before `timeout` (`timeout_warning` events); an empty
    /// list: never.
    pub timeout_warn: Option<Vec<WarnPoint>>,
    /// Move `timeout` this much later when the CLI printed within as much.
    pub extend_on_activity: Option<Duration>,
    /// The limit of those moves, from the attempt's start.
    pub max_timeout: Option<Duration>,
    /// Bound on the CLI's own retries of a failed model request.
    pub max_provider_retries: Option<u32>,
    /// What the agent may do unattended.
    pub permission_mode: Option<PermissionMode>,
    /// Instructions added to the CLI's system prompt.
    pub system: Option<String>,
    /// The working directory of the agent.
    pub cwd: Option<PathBuf>,
    /// A JSON Schema file the answer must satisfy.
    pub output_schema: Option<PathBuf>,
    /// Which recoverable failures hand the task on to the next agent.
    pub retry_on: Option<RetryOn>,
    /// Where the CLI works on the files: shared or in a git worktree.
    pub workspace: Option<WorkspaceMode>,
    /// Environment for the CLI; the lists of all layers add up, a later
    /// pair winning over an earlier one of the same name.
    pub env: Vec<(String, String)>,
    /// Arguments appended to the CLI's argv; the lists of all layers add
    /// up, the lowest layer's first, unless a layer's `extra_args_mode` is
    /// `replace`.
    pub extra_args: Vec<String>,
    /// Whether this layer's `extra_args` replace those of the layers below.
    pub extra_args_mode: Option<ExtraArgsMode>,
    /// Variables of agentgate's environment the CLI does not inherit; the
    /// lists of all layers add up (a variable `env` sets is still set).
    pub env_remove: Vec<String>,
    /// How hard the model thinks (`--reasoning-effort`): a level of
    /// `agentgate_providers::reasoning::EFFORT_LEVELS`.
    pub reasoning_effort: Option<String>,
    /// What to do with an effort the model does not take.
    pub unsupported_effort: Option<UnsupportedEffort>,
    /// A thinking budget in tokens (`--thinking-budget`).
    pub thinking_budget: Option<u32>,
    /// The most turns the agent may take (`--max-turns`).
    pub max_turns: Option<u32>,
}

impl Settings {
    /// `self` over `lower`: each value `self` sets wins; `env` and
    /// `extra_args` are `lower`'s followed by `self`'s.
    #[must_use]
    pub fn combine(self, lower: &Settings) -> Settings {
        Settings {
            binary: self.binary.or_else(|| lower.binary.clone()),
            timeout: self.timeout.or(lower.timeout),
            idle_timeout: self.idle_timeout.or(lower.idle_timeout),
            timeout_warn: self.timeout_warn.or_else(|| lower.timeout_warn.clone()),
            extend_on_activity: self.extend_on_activity.or(lower.extend_on_activity),
            max_timeout: self.max_timeout.or(lower.max_timeout),
            max_provider_retries: self.max_provider_retries.or(lower.max_provider_retries),
            permission_mode: self.permission_mode.or(lower.permission_mode),
            system: self.system.or_else(|| lower.system.clone()),
            cwd: self.cwd.or_else(|| lower.cwd.clone()),
            output_schema: self.output_schema.or_else(|| lower.output_schema.clone()),
            retry_on: self.retry_on.or_else(|| lower.retry_on.clone()),
            workspace: self.workspace.or(lower.workspace),
            env: lower.env.iter().cloned().chain(self.env).collect(),
            extra_args: if self.extra_args_mode == Some(ExtraArgsMode::Replace) {
                self.extra_args
            } else {
                lower
                    .extra_args
                    .iter()
                    .cloned()
                    .chain(self.extra_args)
                    .collect()
            },
            // A layer that replaces replaces every layer below it.
            extra_args_mode: match self.extra_args_mode {
                Some(ExtraArgsMode::Replace) => Some(ExtraArgsMode::Replace),
                _ => lower.extra_args_mode,
            },
            env_remove: lower
                .env_remove
                .iter()
                .cloned()
                .chain(self.env_remove)
                .collect(),
            reasoning_effort: self
                .reasoning_effort
                .or_else(|| lower.reasoning_effort.clone()),
            unsupported_effort: self.unsupported_effort.or(lower.unsupported_effort),
            thinking_budget: self.thinking_budget.or(lower.thinking_budget),
            max_turns: self.max_turns.or(lower.max_turns),
        }
    }
}

/// A duration as written on the command line, in the config file or in a
/// request: `90` (seconds), `1.5`, `90s`, `1500ms`, `10m`, `1h30m`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let bad = || format!("`{s}` is not a duration (examples: 90, 90s, 1500ms, 10m, 1h30m)");
    if s.is_empty() {
        return Err(bad());
    }
    if let Ok(secs) = s.parse::<f64>() {
        return Duration::try_from_secs_f64(secs).map_err(|_| bad());
    }
    let mut total = Duration::ZERO;
    let mut rest = s;
    while !rest.is_empty() {
        let split = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        let (num, tail) = rest.split_at(split);
        let unit_len = tail
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(tail.len());
        let (unit, next) = tail.split_at(unit_len);
        let n: f64 = num.parse().map_err(|_| bad())?;
        let secs = match unit.trim() {
            "ms" => n / 1000.0,
            "s" | "sec" => n,
            "m" | "min" => n * 60.0,
            "h" => n * 3600.0,
            other => {
                return Err(format!("`{s}`: unknown unit `{other}` (use ms, s, m or h)"));
            }
        };
        total += Duration::try_from_secs_f64(secs).map_err(|_| bad())?;
        rest = next;
    }
    Ok(total)
}

/// When to warn before the deadline, as written: `off`, or a
/// comma-separated list of shares of the timeout (`80%`) and times left
/// (`2m`, `30s`): `80%,95%`, `5m,1m`.
pub fn parse_timeout_warn(s: &str) -> Result<Vec<WarnPoint>, String> {
    let s = s.trim();
    if s == "off" || s == "none" {
        return Ok(Vec::new());
    }
    s.split(',')
        .map(|item| {
            let item = item.trim();
            match item.strip_suffix('%') {
                Some(p) => match p.trim().parse::<f64>() {
                    Ok(p) if p > 0.0 && p < 100.0 => {
                        // In (0, 100): a value from 1 to 999.
                        let permille = (p * 10.0).round().clamp(1.0, 999.0);
                        Ok(WarnPoint::Permille(permille as u16))
                    }
                    _ => Err(format!(
                        "`{item}`: a share of the timeout is above 0% and below 100%"
                    )),
                },
                None => match parse_duration(item) {
                    Ok(d) if !d.is_zero() => Ok(WarnPoint::Remaining(d)),
                    Ok(_) => Err(format!("`{item}`: give a time left above 0")),
                    Err(e) => Err(format!(
                        "{e}; a timeout warning is a share (80%) or a time left (2m), or `off`"
                    )),
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn timeout_warnings_are_shares_or_times_left() {
        assert_eq!(
            parse_timeout_warn("80%, 95.5%,2m").unwrap(),
            [
                WarnPoint::Permille(800),
                WarnPoint::Permille(955),
                WarnPoint::Remaining(Duration::from_secs(120))
            ]
        );
        assert_eq!(parse_timeout_warn("off").unwrap(), []);
        for bad in ["100%", "0%", "x%", "0s", "soon", ""] {
            assert!(parse_timeout_warn(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn durations_take_the_usual_forms() {
        assert_eq!(parse_duration("90").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("1.5").unwrap(), Duration::from_millis(1500));
        assert_eq!(
            parse_duration("1500ms").unwrap(),
            Duration::from_millis(1500)
        );
        assert_eq!(parse_duration("5m").unwrap(), Duration::from_secs(300));
        assert_eq!(parse_duration("30sec").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("1h30m").unwrap(), Duration::from_secs(5400));
        assert!(parse_duration("5x").unwrap_err().contains("unknown unit"));
        assert!(parse_duration("").is_err());
        assert!(parse_duration("-3").is_err());
    }

    #[test]
    fn the_higher_layer_wins_and_lists_add_up() {
        let flags = Settings {
            timeout: Some(Duration::from_secs(5)),
            env: vec![("A".into(), "flag".into())],
            extra_args: vec!["--flag".into()],
            ..Settings::default()
        };
        let agent = Settings {
            timeout: Some(Duration::from_secs(60)),
            idle_timeout: Some(Duration::from_secs(7)),
            system: Some("agent".into()),
            env: vec![("A".into(), "agent".into()), ("B".into(), "agent".into())],
            extra_args: vec!["--agent".into()],
            ..Settings::default()
        };
        let provider = Settings {
            binary: Some(PathBuf::from("/opt/cli")),
            idle_timeout: Some(Duration::from_secs(99)),
            extra_args: vec!["--provider".into()],
            ..Settings::default()
        };
        let s = flags.combine(&agent).combine(&provider);
        assert_eq!(s.timeout, Some(Duration::from_secs(5)));
        assert_eq!(s.idle_timeout, Some(Duration::from_secs(7)));
        assert_eq!(s.binary, Some(PathBuf::from("/opt/cli")));
        assert_eq!(s.system.as_deref(), Some("agent"));
        assert_eq!(s.extra_args, ["--provider", "--agent", "--flag"]);
        // The last pair of a name wins when the environment is built.
        assert_eq!(
            s.env,
            [
                ("A".to_owned(), "agent".to_owned()),
                ("B".to_owned(), "agent".to_owned()),
                ("A".to_owned(), "flag".to_owned())
            ]
        );
        assert_eq!(s.permission_mode, None);
    }

    #[test]
    fn a_layer_that_replaces_extra_args_drops_every_layer_below() {
        let layer = |arg: &str, mode| Settings {
            extra_args: vec![arg.into()],
            extra_args_mode: mode,
            ..Settings::default()
        };
        let provider = layer("--provider", None);
        let s = layer("--flag", Some(ExtraArgsMode::Replace))
            .combine(&layer("--agent", None))
            .combine(&provider);
        assert_eq!(s.extra_args, ["--flag"]);
        let s = layer("--flag", None)
            .combine(&layer("--agent", Some(ExtraArgsMode::Replace)))
            .combine(&provider);
        assert_eq!(s.extra_args, ["--agent", "--flag"]);
        let s = layer("--flag", Some(ExtraArgsMode::Append))
            .combine(&layer("--agent", None))
            .combine(&provider);
        assert_eq!(s.extra_args, ["--provider", "--agent", "--flag"]);
        assert!("swap".parse::<ExtraArgsMode>().is_err());
    }

    #[test]
    fn env_remove_adds_up_and_knobs_come_from_the_highest_layer() {
        let flags = Settings {
            reasoning_effort: Some("high".into()),
            env_remove: vec!["CODEX_HOME".into()],
            ..Settings::default()
        };
        let agent = Settings {
            reasoning_effort: Some("low".into()),
            max_turns: Some(3),
            env_remove: vec!["CLAUDE_CONFIG_DIR".into()],
            ..Settings::default()
        };
        let s = flags.combine(&agent);
        assert_eq!(s.reasoning_effort.as_deref(), Some("high"));
        assert_eq!(s.max_turns, Some(3));
        assert_eq!(s.env_remove, ["CLAUDE_CONFIG_DIR", "CODEX_HOME"]);
    }

    #[test]
    fn workspace_mode_comes_from_the_highest_layer_that_sets_it() {
        let agent = Settings {
            workspace: Some(WorkspaceMode::Worktree),
            ..Settings::default()
        };
        let s = Settings::default().combine(&agent);
        assert_eq!(s.workspace, Some(WorkspaceMode::Worktree));
        let flags = Settings {
            workspace: Some(WorkspaceMode::Shared),
            ..Settings::default()
        };
        assert_eq!(flags.combine(&agent).workspace, Some(WorkspaceMode::Shared));
        assert_eq!("worktree".parse(), Ok(WorkspaceMode::Worktree));
        let err = "tree".parse::<WorkspaceMode>().unwrap_err();
        assert!(err.contains("expected shared or worktree"), "{err}");
    }
}
